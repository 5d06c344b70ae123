// SocketAddress: conversion from kernel addresses and host strings, allocation-free formatting.
#include "net/socket_address.h"

#include <arpa/inet.h>

#include <cstring>

namespace slipstream::net {
namespace {

bool is_v4_mapped(const in6_addr& a) {
    static constexpr unsigned char kPrefix[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
    return std::memcmp(a.s6_addr, kPrefix, sizeof kPrefix) == 0;
}

std::size_t copy_out(const char* src, std::size_t n, char* buf, std::size_t cap) {
    if (cap == 0) return 0;
    const std::size_t k = n < cap - 1 ? n : cap - 1;
    std::memcpy(buf, src, k);
    buf[k] = '\0';
    return k;
}

}  // namespace

SocketAddress SocketAddress::from_sockaddr(const sockaddr* sa, socklen_t len) {
    SocketAddress out;
    if (sa == nullptr || len < static_cast<socklen_t>(sizeof(sa_family_t))) return out;
    if (sa->sa_family == AF_INET && len >= static_cast<socklen_t>(sizeof(sockaddr_in))) {
        std::memcpy(&out.addr_.v4, sa, sizeof(sockaddr_in));
        out.len_ = sizeof(sockaddr_in);
    } else if (sa->sa_family == AF_INET6 && len >= static_cast<socklen_t>(sizeof(sockaddr_in6))) {
        sockaddr_in6 v6;
        std::memcpy(&v6, sa, sizeof v6);
        if (is_v4_mapped(v6.sin6_addr)) {
            out.addr_.v4.sin_family = AF_INET;
            out.addr_.v4.sin_port = v6.sin6_port;
            std::memcpy(&out.addr_.v4.sin_addr, v6.sin6_addr.s6_addr + 12, 4);
            out.len_ = sizeof(sockaddr_in);
        } else {
            out.addr_.v6 = v6;
            out.len_ = sizeof(sockaddr_in6);
        }
    } else if (sa->sa_family == AF_UNIX) {
        out = unix_domain();
    }
    return out;
}

base::Result<SocketAddress> SocketAddress::from_host_port(std::string_view host, std::uint16_t port) {
    if (host == "localhost") host = "127.0.0.1";
    if (host.size() >= 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
    char text[INET6_ADDRSTRLEN];
    if (host.empty() || host.size() >= sizeof text) {
        return base::Status::invalid_argument("not a numeric IP address: '" + std::string(host) + "'");
    }
    std::memcpy(text, host.data(), host.size());
    text[host.size()] = '\0';
    SocketAddress out;
    if (::inet_pton(AF_INET, text, &out.addr_.v4.sin_addr) == 1) {
        out.addr_.v4.sin_family = AF_INET;
        out.addr_.v4.sin_port = htons(port);
        out.len_ = sizeof(sockaddr_in);
        return out;
    }
    if (::inet_pton(AF_INET6, text, &out.addr_.v6.sin6_addr) == 1) {
        out.addr_.v6.sin6_family = AF_INET6;
        out.addr_.v6.sin6_port = htons(port);
        out.len_ = sizeof(sockaddr_in6);
        return out;
    }
    return base::Status::invalid_argument("not a numeric IP address or localhost: '" + std::string(host) + "'");
}

SocketAddress SocketAddress::unix_domain() {
    SocketAddress out;
    out.addr_.sa.sa_family = AF_UNIX;
    out.len_ = sizeof(sa_family_t);
    return out;
}

std::uint16_t SocketAddress::port() const {
    if (is_ipv4()) return ntohs(addr_.v4.sin_port);
    if (is_ipv6()) return ntohs(addr_.v6.sin6_port);
    return 0;
}

std::size_t SocketAddress::format(char* buf, std::size_t cap) const {
    char text[kMaxFormatted];
    std::size_t n = 0;
    if (is_ipv4() || is_ipv6()) {
        const bool v6 = is_ipv6();
        if (v6) text[n++] = '[';
        const void* raw = v6 ? static_cast<const void*>(&addr_.v6.sin6_addr) : &addr_.v4.sin_addr;
        if (::inet_ntop(family(), raw, text + n, INET6_ADDRSTRLEN) == nullptr) return copy_out("", 0, buf, cap);
        n += std::strlen(text + n);
        if (v6) text[n++] = ']';
        text[n++] = ':';
        // The port by hand: snprintf would be the slowest part of an access-log line.
        char digits[5];
        std::size_t d = 0;
        unsigned p = port();
        do {
            digits[d++] = static_cast<char>('0' + p % 10);
            p /= 10;
        } while (p != 0);
        while (d > 0)
            text[n++] = digits[--d];
    } else if (is_unix()) {
        std::memcpy(text, "unix", 4);
        n = 4;
    }
    return copy_out(text, n, buf, cap);
}

std::string SocketAddress::to_string() const {
    char buf[kMaxFormatted];
    const std::size_t n = format(buf, sizeof buf);
    return std::string(buf, n);
}

std::string SocketAddress::ip() const {
    if (is_unix()) return "unix";
    if (!is_ipv4() && !is_ipv6()) return "";
    char text[INET6_ADDRSTRLEN];
    const void* raw = is_ipv6() ? static_cast<const void*>(&addr_.v6.sin6_addr) : &addr_.v4.sin_addr;
    if (::inet_ntop(family(), raw, text, sizeof text) == nullptr) return "";
    return text;
}

}  // namespace slipstream::net
