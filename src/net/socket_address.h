// SocketAddress: a compact IPv4/IPv6/Unix socket address that formats as "ip:port".
#pragma once

#include <netinet/in.h>
#include <sys/socket.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "base/result.h"

namespace slipstream::net {

/// An IPv4 or IPv6 address and port, or the mere fact of a Unix-domain peer (its path is not kept: peers
/// of a listening Unix socket are unnamed). 32 bytes, trivially copyable. Not thread-safe (a value type).
class SocketAddress {
  public:
    /// Longest to_string()/format() output ("[ffff:...:255.255.255.255]:65535") plus a NUL.
    static constexpr std::size_t kMaxFormatted = 64;

    /// An unspecified address (family AF_UNSPEC), formats as "".
    SocketAddress() = default;

    /// From a kernel address (accept4, getsockname). IPv4-mapped IPv6 addresses (::ffff:a.b.c.d, seen on a
    /// dual-stack listener) become plain IPv4. Unknown families give an unspecified address.
    static SocketAddress from_sockaddr(const sockaddr* sa, socklen_t len);
    /// A numeric IPv4 or IPv6 host ("127.0.0.1", "::1", "[::1]", "0.0.0.0", "::") or "localhost"
    /// (127.0.0.1) and a port. No DNS. Error: kInvalidArgument for anything else.
    static base::Result<SocketAddress> from_host_port(std::string_view host, std::uint16_t port);
    /// A Unix-domain address (no path kept).
    static SocketAddress unix_domain();

    int family() const { return addr_.sa.sa_family; }
    bool is_ipv4() const { return family() == AF_INET; }
    bool is_ipv6() const { return family() == AF_INET6; }
    bool is_unix() const { return family() == AF_UNIX; }
    /// The port in host order; 0 for Unix/unspecified.
    std::uint16_t port() const;

    /// "127.0.0.1:8080", "[::1]:8080", "unix" or "" (unspecified). Allocates; see format().
    std::string to_string() const;
    /// The host part only: "127.0.0.1", "::1", "unix" or "".
    std::string ip() const;
    /// Writes to_string() into `buf` without allocating; returns its length (truncated to cap - 1, always
    /// NUL-terminated when cap > 0).
    std::size_t format(char* buf, std::size_t cap) const;

    /// For bind/connect (IP families only).
    const sockaddr* sockaddr_ptr() const { return &addr_.sa; }
    socklen_t sockaddr_len() const { return len_; }

  private:
    union Storage {
        sockaddr sa;
        sockaddr_in v4;
        sockaddr_in6 v6;
    };
    Storage addr_{};
    socklen_t len_ = 0;
};

}  // namespace slipstream::net
