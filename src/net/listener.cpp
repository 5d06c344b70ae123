// Listener: binding TCP/Unix listening sockets and the accept loop with its EMFILE handling.
#include "net/listener.h"

#include <fcntl.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <string>

#include "net/socket.h"
#include "net/unix_address.h"

namespace slipstream::net {
namespace {

base::Status set_int_option(int fd, int level, int name, int value, const char* what) {
    if (::setsockopt(fd, level, name, &value, sizeof value) != 0) return base::Status::from_errno(what, errno);
    return base::Status::ok();
}

base::Status bind_error(const std::string& where, int err) {
    const std::string msg = base::Status::from_errno("bind " + where, err).message();
    if (err == EADDRINUSE) return base::Status::already_exists(msg);
    if (err == EADDRNOTAVAIL || err == EAFNOSUPPORT) return base::Status::unavailable(msg);
    return base::Status::io_error(msg);
}

// Errors of accept4 that belong to the one connection being accepted (see accept(2)): skip it.
bool is_connection_error(int err) {
    switch (err) {
        case ECONNABORTED:
        case EPROTO:
        case EPERM:
        case ENETDOWN:
        case ENOPROTOOPT:
        case EHOSTDOWN:
        case ENONET:
        case EHOSTUNREACH:
        case EOPNOTSUPP:
        case ENETUNREACH:
            return true;
        default:
            return false;
    }
}

// Removes a socket file nobody accepts on. Error when a server is live there or the path is no socket.
base::Status remove_stale_socket(const std::string& path) {
    struct stat st;
    if (::lstat(path.c_str(), &st) != 0) {
        if (errno == ENOENT) return base::Status::ok();
        return base::Status::from_errno("stat " + path, errno);
    }
    if (!S_ISSOCK(st.st_mode)) return base::Status::already_exists(path + " exists and is not a socket");
    // A non-blocking probe: a live server answers (or has a full backlog: EAGAIN); a stale file refuses.
    sockaddr_un sun;
    socklen_t len;
    SLIPSTREAM_RETURN_IF_ERROR(detail::make_unix_address(path, sun, len));
    Fd probe(::socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0));
    if (!probe) return base::Status::from_errno("socket", errno);
    if (::connect(probe.get(), reinterpret_cast<const sockaddr*>(&sun), len) == 0 || errno == EAGAIN) {
        return base::Status::already_exists("a server is listening on " + path);
    }
    if (errno != ECONNREFUSED && errno != ENOENT) return base::Status::from_errno("connect " + path, errno);
    if (::unlink(path.c_str()) != 0 && errno != ENOENT) return base::Status::from_errno("unlink " + path, errno);
    return base::Status::ok();
}

// Fails with kAlreadyExists when a socket holds `host:port`: a bind without SO_REUSEPORT conflicts with every
// socket on the address (listening, or bound without SO_REUSEADDR), whatever its own SO_REUSEPORT says.
// SO_REUSEADDR keeps connections in TIME_WAIT from counting.
base::Status probe_unused(std::string_view host, std::uint16_t port, const ListenOptions& options) {
    SLIPSTREAM_ASSIGN_OR_RETURN(const SocketAddress addr, SocketAddress::from_host_port(host, port));
    Fd probe(::socket(addr.family(), SOCK_STREAM | SOCK_CLOEXEC, 0));
    if (!probe) return base::Status::ok();  // listen_tcp reports the same failure
    SLIPSTREAM_RETURN_IF_ERROR(set_int_option(probe.get(), SOL_SOCKET, SO_REUSEADDR, 1, "SO_REUSEADDR"));
    if (addr.is_ipv6()) {
        SLIPSTREAM_RETURN_IF_ERROR(
            set_int_option(probe.get(), IPPROTO_IPV6, IPV6_V6ONLY, options.v6_only ? 1 : 0, "IPV6_V6ONLY"));
    }
    if (::bind(probe.get(), addr.sockaddr_ptr(), addr.sockaddr_len()) == 0) return base::Status::ok();
    const int err = errno;
    if (err == EADDRINUSE) return base::Status::already_exists(addr.to_string() + ": address already in use");
    return bind_error(addr.to_string(), err);
}

int open_reserve() {
    return ::open("/dev/null", O_RDONLY | O_CLOEXEC);
}

}  // namespace

Listener& Listener::operator=(Listener&& other) noexcept {
    if (this != &other) {
        close();
        fd_ = std::move(other.fd_);
        reserve_ = std::move(other.reserve_);
        local_ = other.local_;
        unix_path_ = std::move(other.unix_path_);
        tcp_ = other.tcp_;
        nodelay_ = other.nodelay_;
        nodelay_inherited_ = other.nodelay_inherited_;
        keep_reserve_ = other.keep_reserve_;
        owner_pid_ = std::exchange(other.owner_pid_, 0);
        file_dev_ = other.file_dev_;
        file_ino_ = other.file_ino_;
        other.unix_path_.clear();
    }
    return *this;
}

Listener::~Listener() {
    close();
}

void Listener::close() {
    fd_.reset();
    reserve_.reset();
    if (owner_pid_ != 0 && owner_pid_ == ::getpid() && !unix_path_.empty() && unix_path_.front() != '@') {
        struct stat st;
        if (::lstat(unix_path_.c_str(), &st) == 0 && st.st_dev == file_dev_ && st.st_ino == file_ino_) {
            ::unlink(unix_path_.c_str());
        }
    }
    owner_pid_ = 0;
    unix_path_.clear();
}

void Listener::apply_nodelay(int fd) {
    // Linux copies TCP_NODELAY from the listener to accepted sockets; check that once, then skip the syscall.
    if (nodelay_inherited_ == 1) return;
    if (nodelay_inherited_ == -1) {
        int value = 0;
        socklen_t len = sizeof value;
        const bool inherited = ::getsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &value, &len) == 0 && value != 0;
        nodelay_inherited_ = inherited ? 1 : 0;
        if (inherited) return;
    }
    set_tcp_nodelay(fd, true).ignore_error();  // only fails on a dead socket, which the first read reports
}

void Listener::shed_one_with_reserve() {
    if (!keep_reserve_ || !reserve_) {
        if (keep_reserve_) reserve_.reset(open_reserve());  // try to get the spare back for next time
        return;
    }
    reserve_.reset();
    const int fd = ::accept4(fd_.get(), nullptr, nullptr, SOCK_CLOEXEC);
    if (fd >= 0) ::close(fd);
    reserve_.reset(open_reserve());
}

base::Result<Accepted> Listener::accept() {
    for (;;) {
        sockaddr_storage ss;
        socklen_t len = sizeof ss;
        const int fd = ::accept4(fd_.get(), reinterpret_cast<sockaddr*>(&ss), &len, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd >= 0) {
            Accepted out{Fd(fd), SocketAddress::from_sockaddr(reinterpret_cast<const sockaddr*>(&ss), len)};
            if (tcp_ && nodelay_) apply_nodelay(fd);
            return out;
        }
        const int err = errno;
        if (err == EAGAIN || err == EWOULDBLOCK) return base::Status::unavailable({});
        if (err == EINTR || is_connection_error(err)) continue;
        if (err == EMFILE || err == ENFILE || err == ENOBUFS || err == ENOMEM) {
            shed_one_with_reserve();
            return base::Status::resource_exhausted(base::Status::from_errno("accept", err).message());
        }
        return base::Status::from_errno("accept", err);
    }
}

base::Result<Listener> listen_tcp(std::string_view host, std::uint16_t port, const ListenOptions& options) {
    SLIPSTREAM_ASSIGN_OR_RETURN(const SocketAddress addr, SocketAddress::from_host_port(host, port));
    Listener l;
    l.fd_.reset(::socket(addr.family(), SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0));
    if (!l.fd_) {
        const int err = errno;
        if (err == EAFNOSUPPORT) return base::Status::unavailable("socket: address family not supported");
        return base::Status::from_errno("socket", err);
    }
    const int fd = l.fd_.get();
    if (options.reuse_addr) SLIPSTREAM_RETURN_IF_ERROR(set_int_option(fd, SOL_SOCKET, SO_REUSEADDR, 1, "SO_REUSEADDR"));
    if (options.reuse_port) SLIPSTREAM_RETURN_IF_ERROR(set_int_option(fd, SOL_SOCKET, SO_REUSEPORT, 1, "SO_REUSEPORT"));
    if (addr.is_ipv6()) {
        SLIPSTREAM_RETURN_IF_ERROR(
            set_int_option(fd, IPPROTO_IPV6, IPV6_V6ONLY, options.v6_only ? 1 : 0, "IPV6_V6ONLY"));
    }
    if (options.tcp_nodelay) SLIPSTREAM_RETURN_IF_ERROR(set_tcp_nodelay(fd, true));  // inherited by accepted sockets
    if (::bind(fd, addr.sockaddr_ptr(), addr.sockaddr_len()) != 0) return bind_error(addr.to_string(), errno);
    if (::listen(fd, options.backlog) != 0) return base::Status::from_errno("listen", errno);
    SLIPSTREAM_ASSIGN_OR_RETURN(l.local_, local_address(fd));
    l.tcp_ = true;
    l.nodelay_ = options.tcp_nodelay;
    l.keep_reserve_ = options.keep_reserve_fd;
    if (l.keep_reserve_) {
        l.reserve_.reset(open_reserve());
        if (!l.reserve_) return base::Status::from_errno("open /dev/null (reserve fd)", errno);
    }
    return l;
}

base::Result<std::vector<Listener>> listen_tcp_group(std::string_view host, std::uint16_t port, std::size_t count,
                                                     const ListenOptions& options) {
    if (count > 1 && !options.reuse_port) {
        return base::Status::invalid_argument("listen_tcp_group: several listeners on one port need reuse_port");
    }
    if (options.exclusive && port != 0) SLIPSTREAM_RETURN_IF_ERROR(probe_unused(host, port, options));
    std::vector<Listener> out;
    out.reserve(count);
    for (std::size_t i = 0; i < count; ++i) {
        SLIPSTREAM_ASSIGN_OR_RETURN(Listener l, listen_tcp(host, port, options));
        port = l.local_port();  // the first bind chooses when asked for port 0
        out.push_back(std::move(l));
    }
    return out;
}

base::Result<Listener> listen_unix(const std::string& path, mode_t mode, int backlog) {
    sockaddr_un sun;
    socklen_t len;
    SLIPSTREAM_RETURN_IF_ERROR(detail::make_unix_address(path, sun, len));
    const bool abstract = path.front() == '@';
    if (!abstract) SLIPSTREAM_RETURN_IF_ERROR(remove_stale_socket(path));
    Listener l;
    l.fd_.reset(::socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0));
    if (!l.fd_) return base::Status::from_errno("socket", errno);
    if (::bind(l.fd_.get(), reinterpret_cast<const sockaddr*>(&sun), len) != 0) return bind_error(path, errno);
    l.unix_path_ = path;
    l.local_ = SocketAddress::unix_domain();
    if (!abstract) {
        // From here on the destructor removes the file if anything below fails.
        struct stat st;
        if (::lstat(path.c_str(), &st) == 0) {
            l.owner_pid_ = ::getpid();
            l.file_dev_ = st.st_dev;
            l.file_ino_ = st.st_ino;
        }
        if (::chmod(path.c_str(), mode) != 0) return base::Status::from_errno("chmod " + path, errno);
    }
    if (::listen(l.fd_.get(), backlog) != 0) return base::Status::from_errno("listen", errno);
    return l;
}

}  // namespace slipstream::net
