// Listener: a non-blocking listening socket (TCP over IPv4/IPv6 or Unix) with batched, EMFILE-aware accept.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/result.h"
#include "base/status.h"
#include "net/fd.h"
#include "net/socket_address.h"

namespace slipstream::net {

struct ListenOptions {
    bool reuse_port = true;        // SO_REUSEPORT: one listener per I/O thread on the same port
    bool reuse_addr = true;        // SO_REUSEADDR: rebind while old connections sit in TIME_WAIT
    int backlog = 4096;            // the kernel caps it at net.core.somaxconn
    bool v6_only = false;          // IPv6 hosts only: false makes "::" accept IPv4 as well (dual stack)
    bool tcp_nodelay = true;       // accepted TCP sockets get TCP_NODELAY
    bool keep_reserve_fd = false;  // see Listener::accept()
    /// listen_tcp_group with a fixed port: refuse (kAlreadyExists) when any socket already holds the address,
    /// even one whose SO_REUSEPORT would let this group join it (another server left running). Off: share it.
    bool exclusive = false;
};

/// A connection taken from a listener: non-blocking, close-on-exec, TCP_NODELAY (TCP, by default).
struct Accepted {
    Fd fd;
    SocketAddress peer;  // IPv4-mapped peers of a dual-stack listener appear as IPv4; Unix peers as "unix"
};

/// A listening socket. Move-only; closing it (destruction) stops listening, and a Unix listener also removes
/// its socket file if this process created it and it is still the same file. Not thread-safe: one listener
/// belongs to one loop thread (with SO_REUSEPORT each I/O thread has its own on the same port).
class Listener {
  public:
    Listener(Listener&& other) noexcept { *this = std::move(other); }
    Listener& operator=(Listener&& other) noexcept;
    Listener(const Listener&) = delete;
    Listener& operator=(const Listener&) = delete;
    ~Listener();

    /// The listening fd, for EventLoop::add (EPOLLIN).
    int fd() const { return fd_.get(); }
    /// The bound port (the one the kernel chose when asked for port 0); 0 for Unix listeners.
    std::uint16_t local_port() const { return local_.port(); }
    const SocketAddress& local_address() const { return local_; }
    /// The Unix socket path ("@name" for abstract); empty for TCP listeners.
    const std::string& unix_path() const { return unix_path_; }

    /// Accepts one pending connection (accept4 with SOCK_NONBLOCK | SOCK_CLOEXEC). Outcomes:
    ///  - a connection;
    ///  - kUnavailable (empty message, no allocation): no connection pending;
    ///  - kResourceExhausted: out of fds or kernel memory (EMFILE, ENFILE, ENOBUFS, ENOMEM). The connection
    ///    stays queued and the listener stays readable, so with level-triggered epoll the caller must stop
    ///    watching it for a while (modify(fd, 0), re-arm from a timer ~100 ms later) or it spins. With
    ///    ListenOptions::keep_reserve_fd the listener holds one spare fd (/dev/null) and on EMFILE closes it,
    ///    accepts and immediately closes one connection (so that client sees a close instead of hanging in
    ///    the backlog), then reopens the spare; the status is the same. The spare is per listener and can be
    ///    lost to another thread's open() in between, in which case it is retried at the next EMFILE.
    ///  - kIoError: anything else (a bug such as a closed listener).
    /// Errors that concern only the aborted connection (ECONNABORTED, EPROTO, EPERM, network errors) are
    /// skipped: the next pending connection is tried. Loop thread of the listener.
    base::Result<Accepted> accept();

    /// Accepts up to `max` connections, calling `on_accept(Accepted&&)` for each. Returns ok when the queue
    /// is empty or `max` were taken (level-triggered epoll reports the rest next iteration), otherwise the
    /// error of accept() (kResourceExhausted: back off as described there).
    template <typename F>
    [[nodiscard]] base::Status accept_batch(std::size_t max, F&& on_accept) {
        for (std::size_t i = 0; i < max; ++i) {
            base::Result<Accepted> r = accept();
            if (!r.is_ok()) {
                base::Status s = r.status();
                return s.is_unavailable() ? base::Status::ok() : s;
            }
            on_accept(std::move(r).value());
        }
        return base::Status::ok();
    }

  private:
    friend base::Result<Listener> listen_tcp(std::string_view, std::uint16_t, const ListenOptions&);
    friend base::Result<Listener> listen_unix(const std::string&, mode_t, int);

    Listener() = default;
    void close();
    void apply_nodelay(int fd);
    void shed_one_with_reserve();

    Fd fd_;
    Fd reserve_;
    SocketAddress local_;
    std::string unix_path_;
    bool tcp_ = false;
    bool nodelay_ = false;
    signed char nodelay_inherited_ = -1;  // -1 unknown, 0 no, 1 yes: Linux copies it from the listener
    bool keep_reserve_ = false;
    pid_t owner_pid_ = 0;  // Unix socket file: created by this process ...
    dev_t file_dev_ = 0;   // ... and still this file (not a successor's)
    ino_t file_ino_ = 0;
};

/// Binds and listens on a TCP address. `host`: a numeric IPv4/IPv6 address ("0.0.0.0", "::", "127.0.0.1",
/// "::1", "[::1]") or "localhost" (127.0.0.1). Port 0 lets the kernel choose (see local_port()).
/// Errors: kInvalidArgument (host), kAlreadyExists (EADDRINUSE: port taken, or taken without SO_REUSEPORT),
/// kUnavailable (EADDRNOTAVAIL/EAFNOSUPPORT: that address or family is not configured here, e.g. no IPv6),
/// kIoError (anything else). Control plane; any thread.
base::Result<Listener> listen_tcp(std::string_view host, std::uint16_t port, const ListenOptions& options = {});

/// `count` listeners on the same address with SO_REUSEPORT (one per I/O thread). With port 0 the first bind
/// chooses the port and the others bind to it. With `options.exclusive` and a fixed port, a probe socket
/// without SO_REUSEPORT is bound (and closed) first: kAlreadyExists, "<address>: address already in use",
/// when another socket holds the address. Errors as listen_tcp; kInvalidArgument when count > 1 without
/// reuse_port. Control plane; any thread.
base::Result<std::vector<Listener>> listen_tcp_group(std::string_view host, std::uint16_t port, std::size_t count,
                                                     const ListenOptions& options = {});

/// Binds and listens on a Unix stream socket at `path` with file mode `mode` ("@name": abstract namespace,
/// no file). A stale socket file (nobody accepts on it) is removed first. Errors: kInvalidArgument (path
/// too long), kAlreadyExists (a live server listens there, or the path exists and is not a socket),
/// kIoError. Control plane; any thread.
base::Result<Listener> listen_unix(const std::string& path, mode_t mode = 0660, int backlog = 4096);

}  // namespace slipstream::net
