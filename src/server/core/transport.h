// Transport: how a connection moves bytes: the plain socket, or a TLS stream over it.
#pragma once

#include <cstddef>
#include <memory>
#include <span>
#include <string_view>

#include "base/result.h"
#include "net/event_loop.h"
#include "net/io_handler.h"
#include "net/socket.h"
#include "net/stream_io.h"
#include "net/tls/tls_stream.h"
#include "server/core/output_queue.h"

namespace slipstream::server {

/// The seam between a connection's protocol code (HTTP/1.1, HTTP/2, WebSocket) and its bytes on the wire.
/// Plain: read(2) and writev(2) on the socket, or, on an io_uring loop, the loop's own receives and sends
/// (net::StreamIo: no system call of their own). TLS: the same calls through a TlsStream, whose handshake the
/// connection drives before any protocol starts (readiness-driven on either loop). The fd is not owned.
/// Loop thread only.
class Transport {
  public:
    explicit Transport(int fd) : fd_(fd) {}
    Transport(int fd, std::unique_ptr<net::tls::TlsStream> tls) : fd_(fd), tls_(std::move(tls)) {}

    /// Registers the socket with `loop` for `handler` (instead of loop.add): as a stream whose I/O the loop
    /// performs when the loop runs on io_uring and the socket is plain; for readiness otherwise.
    [[nodiscard]] base::Status register_with(net::EventLoop& loop, std::uint32_t events, net::IoHandler* handler);
    /// Unregisters from `loop` (before the fd closes); a stream's output already taken is still sent.
    void unregister(net::EventLoop& loop);

    /// As net::read_some: n > 0, 0 at end of stream, kUnavailable, or an error.
    base::Result<std::size_t> read(std::span<char> buffer) {
        if (stream_ != nullptr) return stream_->read(buffer);
        if (!tls_) return net::read_some(fd_, buffer);  // inline: the plain socket's recv is built in place
        return read_tls(buffer);
    }
    /// Raw bytes past TLS (what a lingering close reads and drops).
    base::Result<std::size_t> read_raw(std::span<char> buffer);
    /// Writes what `out` holds as far as the socket takes it (outcomes of OutputQueue::flush). Plain: writev
    /// and sendfile(2) for file pieces. TLS: `scratch` gathers small pieces into one TLS record, and file
    /// pieces are read into it one record at a time (unused for plain sockets).
    base::Result<std::size_t> flush(OutputQueue& out, std::span<char> scratch) {
        if (stream_ == nullptr && !tls_) return out.flush(fd_);
        // The ring's send buffer takes a copy: file pieces are read into scratch first, as for TLS.
        if (stream_ != nullptr) return out.flush_to(&Transport::write_stream, stream_, scratch);
        return flush_tls(out, scratch);
    }
    /// TLS has decrypted input buffered: read again without waiting for EPOLLIN.
    bool has_buffered_input() const { return tls_ && tls_->has_buffered_input(); }
    /// Called about once a second: frees the TLS record buffers when there was no read or write since the
    /// previous call (an idle keep-alive or WebSocket connection holds no OpenSSL buffers).
    void release_idle_buffers() {
        if (tls_ && !tls_active_) tls_->release_buffers();
        tls_active_ = false;
    }
    /// The last read is waiting for the socket to be writable (TLS only).
    bool read_wants_write() const { return tls_ && tls_->read_wants_write(); }
    /// TLS close_notify (once, best effort), then shutdown(SHUT_WR).
    [[nodiscard]] base::Status shutdown_write();
    /// TLS close_notify before the socket closes (best effort; nothing for plain sockets).
    void close_notify();

    net::tls::TlsStream* tls() const { return tls_.get(); }
    int fd() const { return fd_; }

  private:
    struct TlsWrite {
        net::tls::TlsStream* tls;
        std::span<char> scratch;
    };
    base::Result<std::size_t> read_tls(std::span<char> buffer);
    base::Result<std::size_t> flush_tls(OutputQueue& out, std::span<char> scratch);
    static base::Result<std::size_t> write_tls(void* context, std::span<const iovec> pieces);
    static base::Result<std::size_t> write_stream(void* context, std::span<const iovec> pieces);

    int fd_;
    net::StreamIo* stream_ = nullptr;  // set while registered as a stream with an io_uring loop
    std::unique_ptr<net::tls::TlsStream> tls_;
    bool tls_active_ = false;  // a TLS read or write since the last release_idle_buffers()
};

}  // namespace slipstream::server
