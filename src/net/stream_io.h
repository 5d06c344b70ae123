// StreamIo: reads and writes of a socket whose I/O the event loop performs itself (the io_uring backend).
#pragma once

#include <sys/uio.h>

#include <cstddef>
#include <span>

#include "base/result.h"
#include "base/status.h"

namespace slipstream::net {

/// A socket registered with EventLoop::add_stream(): the loop receives into its own buffers and sends what
/// write() took at the next wait, so a request costs one system call (the wait) instead of three. Outcomes
/// match net::read_some / writev_some, so protocol code runs unchanged. Valid until EventLoop::remove(fd).
/// Loop thread only.
///
/// Readiness the handler sees (IoHandler::on_io) is emulated with level-triggered meaning: EPOLLIN while
/// received bytes, end of stream or an error wait to be read (EPOLLRDHUP with end of stream); EPOLLOUT
/// (when registered) once no send is in flight; EPOLLERR after a failed send.
class StreamIo {
  public:
    /// Copies received bytes into `buffer`: n > 0; 0 at end of stream; kUnavailable (empty message) when
    /// nothing has arrived yet (a receive is then in flight); kIoError when the connection failed.
    virtual base::Result<std::size_t> read(std::span<char> buffer) = 0;
    /// Takes up to a bounded amount of `pieces` into the socket's send buffer and returns the bytes taken;
    /// they are sent at the next wait, in order. kUnavailable when a send is in flight (register EPOLLOUT to
    /// hear when it finished); kIoError after a failed send.
    virtual base::Result<std::size_t> write(std::span<const iovec> pieces) = 0;
    /// shutdown(SHUT_WR) once everything taken has been sent.
    [[nodiscard]] virtual base::Status shutdown_write() = 0;

  protected:
    ~StreamIo() = default;
};

}  // namespace slipstream::net
