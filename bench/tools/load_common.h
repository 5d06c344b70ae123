// What bench/tools' load generators share: a TCP connect, non-blocking send and receive loops, latency percentiles.
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

namespace load {

/// The options every load generator takes: where it connects, the path it asks for, how many connections.
struct Target {
    std::string host = "127.0.0.1";
    int port = 0;
    std::string path;
    int connections = 0;
};

/// Reads "--flag value" pairs: --host, --port, --path and --connections into `target`, any other flag through
/// `tool_flag(flag, value)`, which returns false for one it does not know. A flag without a value, an unknown
/// flag, or a --port outside 1..65535 or --connections outside 1..100000 ends in `usage(why)` (which exits).
template <class ToolFlag>
void parse_flags(int argc, char** argv, Target& target, ToolFlag tool_flag, void (*usage)(const char* why)) {
    for (int i = 1; i < argc; ++i) {
        const std::string_view flag = argv[i];
        if (i + 1 >= argc) usage("every option takes a value");
        const char* value = argv[++i];
        if (flag == "--host") {
            target.host = value;
        } else if (flag == "--port") {
            target.port = std::atoi(value);
        } else if (flag == "--path") {
            target.path = value;
        } else if (flag == "--connections") {
            target.connections = std::atoi(value);
        } else if (!tool_flag(flag, value)) {
            usage("unknown option");
        }
    }
    if (target.port <= 0 || target.port > 65535) usage("--port is required (1..65535)");
    if (target.connections < 1 || target.connections > 100000) usage("--connections must be 1..100000");
}

/// A connected TCP socket to host:port (IPv4 literal) with TCP_NODELAY, blocking; -1 on failure.
inline int connect_tcp(const std::string& host, int port) {
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(static_cast<std::uint16_t>(port));
    if (inet_pton(AF_INET, host.c_str(), &addr.sin_addr) != 1) return -1;
    const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return -1;
    if (connect(fd, reinterpret_cast<const sockaddr*>(&addr), sizeof addr) != 0) {
        close(fd);
        return -1;
    }
    const int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    return fd;
}

/// Sends out[off..] until done or the socket is full (non-blocking); the output is cleared once all went.
/// False on an error.
inline bool send_some(int fd, std::string& out, std::size_t& off) {
    while (off < out.size()) {
        const ssize_t n = send(fd, out.data() + off, out.size() - off, MSG_NOSIGNAL);
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) break;
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return false;
        off += static_cast<std::size_t>(n);
    }
    if (off == out.size()) {
        out.clear();
        off = 0;
    }
    return true;
}

/// send_some, then keeps EPOLLOUT armed on `fd` in `epoll` exactly while output is left (`armed` remembers
/// which; `tag` is the event's data.u32). False on an error.
inline bool flush_and_arm(int epoll, int fd, std::uint32_t tag, std::string& out, std::size_t& off, bool& armed) {
    if (!send_some(fd, out, off)) return false;
    const bool want_write = !out.empty();
    if (want_write != armed) {
        epoll_event ev{};
        ev.events = EPOLLIN | (want_write ? EPOLLOUT : 0u);
        ev.data.u32 = tag;
        epoll_ctl(epoll, EPOLL_CTL_MOD, fd, &ev);
        armed = want_write;
    }
    return true;
}

/// Appends what the socket holds to `in` (non-blocking). 1: read (or nothing yet), 0: the peer closed,
/// -1: an error.
inline int receive_available(int fd, std::string& in) {
    char buf[65536];
    for (;;) {
        const ssize_t n = recv(fd, buf, sizeof buf, 0);
        if (n > 0) {
            in.append(buf, static_cast<std::size_t>(n));
            if (static_cast<std::size_t>(n) < sizeof buf) return 1;
            continue;
        }
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return 1;
        if (n < 0 && errno == EINTR) continue;
        return n == 0 ? 0 : -1;
    }
}

/// The pct-th percentile (nearest rank) of sorted nanoseconds, in microseconds.
inline double percentile_us(const std::vector<std::uint32_t>& sorted, double pct) {
    if (sorted.empty()) return 0.0;
    std::size_t rank = static_cast<std::size_t>(std::ceil(static_cast<double>(sorted.size()) * pct / 100.0));
    rank = std::clamp<std::size_t>(rank, 1, sorted.size());
    return sorted[rank - 1] / 1000.0;
}

/// Sorts `latency_ns` and prints the JSON report's closing members: "latency_us" (50, 75, 90, 99, 99.9),
/// "latency_avg_us", "latency_max_us", then "}" and a newline.
inline void print_latency_tail(std::vector<std::uint32_t>& latency_ns) {
    std::sort(latency_ns.begin(), latency_ns.end());
    double sum = 0;
    for (auto v : latency_ns)
        sum += v;
    const double avg = latency_ns.empty() ? 0.0 : sum / static_cast<double>(latency_ns.size()) / 1000.0;
    const double max = latency_ns.empty() ? 0.0 : latency_ns.back() / 1000.0;
    std::printf(
        "\"latency_us\":{\"50\":%.1f,\"75\":%.1f,\"90\":%.1f,\"99\":%.1f,\"99.9\":%.1f},"
        "\"latency_avg_us\":%.1f,\"latency_max_us\":%.1f}\n",
        percentile_us(latency_ns, 50), percentile_us(latency_ns, 75), percentile_us(latency_ns, 90),
        percentile_us(latency_ns, 99), percentile_us(latency_ns, 99.9), avg, max);
}

}  // namespace load
