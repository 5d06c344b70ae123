// Socket I/O wrappers (read/write/writev that tell "would block" from EOF and errors) and socket helpers.
#pragma once

#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/uio.h>

#include <cerrno>

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

#include "base/result.h"
#include "base/status.h"
#include "net/fd.h"
#include "net/raw_syscall.h"
#include "net/socket_address.h"

namespace slipstream::net {

// Outcomes of read_some / write_some / writev_some (all retry EINTR internally):
//   value n > 0          n bytes were transferred (possibly fewer than asked: a short read/write);
//   value 0              read_some: end of stream (the peer shut down its write side), when `buffer` is
//                        non-empty; write_some/writev_some: only when given nothing to write;
//   kUnavailable         would block (EAGAIN/EWOULDBLOCK): wait for readiness. Its message is empty, so
//                        this status never allocates;
//   kIoError             any other errno (ECONNRESET, EPIPE, ETIMEDOUT, ...): the connection is done;
//                        the message is "read: <strerror>" / "write: ..." / "writev: ...".
// Writes use send/sendmsg with MSG_NOSIGNAL, so a peer that went away yields EPIPE, never SIGPIPE.
// All are thread-safe in the sense of the underlying syscalls (callers own their fds).

namespace detail {
/// The outcome of a call that failed with `err`: kUnavailable (empty message) for EAGAIN/EWOULDBLOCK,
/// kIoError "<what>: <strerror>" otherwise.
base::Result<std::size_t> io_failure(const char* what, int err);
}  // namespace detail

// Inline, so a caller builds the Result in place; recvfrom rather than read(2): read passes through the VFS
// first (file position, permission and fsnotify hooks), ~60 ns more per call (event_loop_bench
// BM_ReadWouldBlock ~480 -> ~420 ns).

/// Reads at most buffer.size() bytes from a socket (recv(2); sockets only).
inline base::Result<std::size_t> read_some(int fd, std::span<char> buffer) {
    for (;;) {
        const long n = detail::raw_syscall(SYS_recvfrom, fd, reinterpret_cast<long>(buffer.data()),
                                           static_cast<long>(buffer.size()));
        if (n >= 0) return static_cast<std::size_t>(n);
        if (n != -EINTR) return detail::io_failure("read", static_cast<int>(-n));
    }
}
/// Writes at most data.size() bytes to a socket (send(2) with MSG_NOSIGNAL; sockets only).
inline base::Result<std::size_t> write_some(int fd, std::string_view data) {
    for (;;) {
        const long n = detail::raw_syscall(SYS_sendto, fd, reinterpret_cast<long>(data.data()),
                                           static_cast<long>(data.size()), MSG_NOSIGNAL);
        if (n >= 0) return static_cast<std::size_t>(n);
        if (n != -EINTR) return detail::io_failure("write", static_cast<int>(-n));
    }
}
/// Writes the buffers in order, as far as the socket takes them (sendmsg(2) with MSG_NOSIGNAL; sockets
/// only). At most IOV_MAX buffers are passed per call; the caller advances past what was written.
base::Result<std::size_t> writev_some(int fd, std::span<const iovec> buffers);

/// True when `r` is the "would block" outcome of the calls above.
inline bool would_block(const base::Result<std::size_t>& r) {
    return !r.is_ok() && r.status().is_unavailable();
}

/// shutdown(fd, SHUT_WR): sends FIN after queued data. Error: kIoError (ENOTCONN when the peer reset).
[[nodiscard]] base::Status shutdown_write(int fd);
/// Sets or clears TCP_NODELAY. Error: kIoError.
[[nodiscard]] base::Status set_tcp_nodelay(int fd, bool on);
/// Sets or clears O_NONBLOCK. Error: kIoError.
[[nodiscard]] base::Status set_nonblocking(int fd, bool on);
/// The pending socket error (SO_ERROR), e.g. after EPOLLERR; 0 when none.
int socket_error(int fd);
/// What a stream socket holds that its peer has not taken yet (SIOCOUTQ): TCP, the bytes unsent or not yet
/// acknowledged by the peer's kernel; Unix, nonzero (the kernel's buffer accounting, not bytes) until the
/// peer has read everything. 0 when nothing is pending, and on error (a dead socket, which the next write
/// reports).
std::size_t unsent_bytes(int fd);
/// The address a socket is bound to (getsockname). Error: kIoError.
base::Result<SocketAddress> local_address(int fd);
/// The address of a connected socket's peer (getpeername). Error: kIoError.
base::Result<SocketAddress> peer_address(int fd);

/// Sets SIGPIPE to SIG_IGN for the whole process. Our own writes never raise SIGPIPE (MSG_NOSIGNAL), but
/// other code writing to sockets or pipes (OpenSSL's BIOs, plain write(2)/writev(2) in libraries) can; the
/// application calls this once at start-up. Thread-safe, idempotent.
void ignore_sigpipe();

/// Connects a blocking, close-on-exec TCP socket (for tests, tools and control-plane clients; blocks the
/// caller). `host` as in SocketAddress::from_host_port. Errors: kInvalidArgument (host), kIoError.
base::Result<Fd> connect_tcp(std::string_view host, std::uint16_t port);
/// Connects a blocking, close-on-exec Unix stream socket ("@name" is the abstract namespace).
/// Errors: kInvalidArgument (path too long), kIoError.
base::Result<Fd> connect_unix(std::string_view path);

}  // namespace slipstream::net
