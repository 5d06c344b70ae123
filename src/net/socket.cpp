// Socket I/O wrappers and helpers over plain syscalls.
#include "net/socket.h"

#include <fcntl.h>
#include <linux/sockios.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstddef>
#include <cstring>
#include <string>

#include "net/unix_address.h"

namespace slipstream::net {
namespace detail {

base::Result<std::size_t> io_failure(const char* what, int err) {
    if (err == EAGAIN || err == EWOULDBLOCK) return base::Status::unavailable({});
    return base::Status::from_errno(what, err);
}

}  // namespace detail

base::Result<std::size_t> writev_some(int fd, std::span<const iovec> buffers) {
    msghdr msg{};
    msg.msg_iov = const_cast<iovec*>(buffers.data());  // sendmsg does not write through it
    msg.msg_iovlen = buffers.size() < IOV_MAX ? buffers.size() : IOV_MAX;
    for (;;) {
        const long n = detail::raw_syscall(SYS_sendmsg, fd, reinterpret_cast<long>(&msg), MSG_NOSIGNAL);
        if (n >= 0) return static_cast<std::size_t>(n);
        if (n != -EINTR) return detail::io_failure("writev", static_cast<int>(-n));
    }
}

std::size_t unsent_bytes(int fd) {
    int n = 0;
    return ::ioctl(fd, SIOCOUTQ, &n) == 0 && n > 0 ? static_cast<std::size_t>(n) : 0;
}

base::Status shutdown_write(int fd) {
    if (::shutdown(fd, SHUT_WR) != 0) return base::Status::from_errno("shutdown", errno);
    return base::Status::ok();
}

base::Status set_tcp_nodelay(int fd, bool on) {
    const int value = on ? 1 : 0;
    if (::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &value, sizeof value) != 0) {
        return base::Status::from_errno("setsockopt(TCP_NODELAY)", errno);
    }
    return base::Status::ok();
}

base::Status set_nonblocking(int fd, bool on) {
    const int flags = ::fcntl(fd, F_GETFL);
    if (flags < 0) return base::Status::from_errno("fcntl(F_GETFL)", errno);
    const int wanted = on ? (flags | O_NONBLOCK) : (flags & ~O_NONBLOCK);
    if (wanted != flags && ::fcntl(fd, F_SETFL, wanted) != 0) return base::Status::from_errno("fcntl(F_SETFL)", errno);
    return base::Status::ok();
}

int socket_error(int fd) {
    int err = 0;
    socklen_t len = sizeof err;
    if (::getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) != 0) return errno;
    return err;
}

base::Result<SocketAddress> local_address(int fd) {
    sockaddr_storage ss{};
    socklen_t len = sizeof ss;
    if (::getsockname(fd, reinterpret_cast<sockaddr*>(&ss), &len) != 0) {
        return base::Status::from_errno("getsockname", errno);
    }
    return SocketAddress::from_sockaddr(reinterpret_cast<const sockaddr*>(&ss), len);
}

base::Result<SocketAddress> peer_address(int fd) {
    sockaddr_storage ss{};
    socklen_t len = sizeof ss;
    if (::getpeername(fd, reinterpret_cast<sockaddr*>(&ss), &len) != 0) {
        return base::Status::from_errno("getpeername", errno);
    }
    return SocketAddress::from_sockaddr(reinterpret_cast<const sockaddr*>(&ss), len);
}

void ignore_sigpipe() {
    struct sigaction sa {};
    sa.sa_handler = SIG_IGN;
    sigemptyset(&sa.sa_mask);
    ::sigaction(SIGPIPE, &sa, nullptr);
}

base::Result<Fd> connect_tcp(std::string_view host, std::uint16_t port) {
    SLIPSTREAM_ASSIGN_OR_RETURN(const SocketAddress addr, SocketAddress::from_host_port(host, port));
    Fd fd(::socket(addr.family(), SOCK_STREAM | SOCK_CLOEXEC, 0));
    if (!fd) return base::Status::from_errno("socket", errno);
    int rc;
    do {
        rc = ::connect(fd.get(), addr.sockaddr_ptr(), addr.sockaddr_len());
    } while (rc != 0 && errno == EINTR);
    if (rc != 0) return base::Status::from_errno("connect " + addr.to_string(), errno);
    return fd;
}

base::Result<Fd> connect_unix(std::string_view path) {
    sockaddr_un sun;
    socklen_t len;
    SLIPSTREAM_RETURN_IF_ERROR(detail::make_unix_address(path, sun, len));
    Fd fd(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
    if (!fd) return base::Status::from_errno("socket", errno);
    int rc;
    do {
        rc = ::connect(fd.get(), reinterpret_cast<const sockaddr*>(&sun), len);
    } while (rc != 0 && errno == EINTR);
    if (rc != 0) return base::Status::from_errno("connect " + std::string(path), errno);
    return fd;
}

namespace detail {

base::Status make_unix_address(std::string_view path, sockaddr_un& out, socklen_t& len) {
    out = sockaddr_un{};
    out.sun_family = AF_UNIX;
    if (path.empty() || path.size() >= sizeof out.sun_path) {
        return base::Status::invalid_argument("unix socket path empty or too long: '" + std::string(path) + "'");
    }
    std::memcpy(out.sun_path, path.data(), path.size());
    const bool abstract = path.front() == '@';
    if (abstract) out.sun_path[0] = '\0';
    // Abstract names are exactly their bytes; file paths include the terminating NUL.
    len = static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + path.size() + (abstract ? 0 : 1));
    return base::Status::ok();
}

}  // namespace detail
}  // namespace slipstream::net
