// ws_load: WebSocket echo load generator for bench/ (closed loop, N connections, D messages in flight each; JSON out).
//
// Each connection does the RFC 6455 handshake (Sec-WebSocket-Accept checked, no extension offered), then keeps
// `--depth` masked text messages of `--size` bytes in flight and sends the next one when an echo comes back.
// Every echo is compared byte for byte with the message it answers (echoes come back in order per connection).
// Runs for `--duration` seconds, or until `--messages` echoes arrived. Prints one JSON object on stdout.
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <string>
#include <string_view>
#include <vector>

#include "load_common.h"

namespace {

using Clock = std::chrono::steady_clock;

struct Options {
    load::Target target{"127.0.0.1", 0, "/ws", 64};
    int depth = 1;
    std::size_t size = 32;
    double duration_s = 5.0;
    std::uint64_t messages = 0;  // > 0: stop after this many echoes instead of after duration_s
    double timeout_s = 30.0;     // with messages: give up after this long
};

struct Errors {
    std::uint64_t connect = 0, handshake = 0, read = 0, write = 0, closed = 0, protocol = 0;
};

// ---- SHA-1 and base64, for Sec-WebSocket-Accept (RFC 3174, RFC 4648) ----

std::uint32_t rotl(std::uint32_t v, int n) {
    return (v << n) | (v >> (32 - n));
}

std::array<std::uint8_t, 20> sha1(std::string_view data) {
    std::uint32_t h[5] = {0x67452301, 0xEFCDAB89, 0x98BADCFE, 0x10325476, 0xC3D2E1F0};
    std::string msg(data);
    const std::uint64_t bits = static_cast<std::uint64_t>(data.size()) * 8;
    msg.push_back(static_cast<char>(0x80));
    while (msg.size() % 64 != 56)
        msg.push_back('\0');
    for (int i = 7; i >= 0; --i)
        msg.push_back(static_cast<char>((bits >> (i * 8)) & 0xff));
    for (std::size_t chunk = 0; chunk < msg.size(); chunk += 64) {
        std::uint32_t w[80];
        for (int i = 0; i < 16; ++i) {
            const auto* p = reinterpret_cast<const std::uint8_t*>(msg.data() + chunk + i * 4);
            w[i] = (std::uint32_t{p[0]} << 24) | (std::uint32_t{p[1]} << 16) | (std::uint32_t{p[2]} << 8) | p[3];
        }
        for (int i = 16; i < 80; ++i)
            w[i] = rotl(w[i - 3] ^ w[i - 8] ^ w[i - 14] ^ w[i - 16], 1);
        std::uint32_t a = h[0], b = h[1], c = h[2], d = h[3], e = h[4];
        for (int i = 0; i < 80; ++i) {
            std::uint32_t f, k;
            if (i < 20) {
                f = (b & c) | (~b & d), k = 0x5A827999;
            } else if (i < 40) {
                f = b ^ c ^ d, k = 0x6ED9EBA1;
            } else if (i < 60) {
                f = (b & c) | (b & d) | (c & d), k = 0x8F1BBCDC;
            } else {
                f = b ^ c ^ d, k = 0xCA62C1D6;
            }
            const std::uint32_t t = rotl(a, 5) + f + e + k + w[i];
            e = d, d = c, c = rotl(b, 30), b = a, a = t;
        }
        h[0] += a, h[1] += b, h[2] += c, h[3] += d, h[4] += e;
    }
    std::array<std::uint8_t, 20> out{};
    for (int i = 0; i < 20; ++i)
        out[i] = static_cast<std::uint8_t>(h[i / 4] >> (24 - 8 * (i % 4)));
    return out;
}

std::string base64(const std::uint8_t* data, std::size_t n) {
    static constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    std::string out;
    for (std::size_t i = 0; i < n; i += 3) {
        const std::uint32_t v = (std::uint32_t{data[i]} << 16) | (i + 1 < n ? std::uint32_t{data[i + 1]} << 8 : 0) |
                                (i + 2 < n ? std::uint32_t{data[i + 2]} : 0);
        out.push_back(kAlphabet[(v >> 18) & 63]);
        out.push_back(kAlphabet[(v >> 12) & 63]);
        out.push_back(i + 1 < n ? kAlphabet[(v >> 6) & 63] : '=');
        out.push_back(i + 2 < n ? kAlphabet[v & 63] : '=');
    }
    return out;
}

std::string accept_for(const std::string& key) {
    const auto digest = sha1(key + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11");
    return base64(digest.data(), digest.size());
}

// ---- one connection ----

struct Connection {
    int fd = -1;
    int index = 0;
    std::string in;   // received bytes not yet parsed
    std::string out;  // frames not yet written
    std::size_t out_off = 0;
    std::deque<std::pair<std::uint64_t, Clock::time_point>> in_flight;  // (sequence, sent at), oldest first
    std::uint64_t next_seq = 0;
    std::string fragments;  // a fragmented message being reassembled
    bool writable_armed = false;
};

std::uint64_t xorshift(std::uint64_t& state) {
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    return state;
}

// The message with this sequence number on this connection: hex of (connection, sequence) then letters.
std::string payload_for(int connection, std::uint64_t seq, std::size_t size) {
    std::string p(size, 'a');
    for (std::size_t i = 0; i < size; ++i)
        p[i] = static_cast<char>('a' + i % 26);
    char head[40];
    const int n = std::snprintf(head, sizeof head, "%x:%llx:", connection, static_cast<unsigned long long>(seq));
    std::memcpy(p.data(), head, std::min<std::size_t>(static_cast<std::size_t>(n), size));
    return p;
}

// Appends one masked client frame (FIN set) to `out`.
void append_frame(std::string& out, std::uint8_t opcode, std::string_view payload, std::uint64_t& rng) {
    out.push_back(static_cast<char>(0x80 | opcode));
    const std::size_t n = payload.size();
    if (n < 126) {
        out.push_back(static_cast<char>(0x80 | n));
    } else if (n <= 0xffff) {
        out.push_back(static_cast<char>(0x80 | 126));
        out.push_back(static_cast<char>(n >> 8));
        out.push_back(static_cast<char>(n & 0xff));
    } else {
        out.push_back(static_cast<char>(0x80 | 127));
        for (int i = 7; i >= 0; --i)
            out.push_back(static_cast<char>((n >> (i * 8)) & 0xff));
    }
    const std::uint32_t mask = static_cast<std::uint32_t>(xorshift(rng));
    char key[4];
    std::memcpy(key, &mask, 4);
    out.append(key, 4);
    for (std::size_t i = 0; i < n; ++i)
        out.push_back(static_cast<char>(payload[i] ^ key[i % 4]));
}

int connect_to(const Options& opt) {
    const int fd = load::connect_tcp(opt.target.host, opt.target.port);
    if (fd < 0) return -1;
    timeval tv{5, 0};  // the handshake is blocking
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
    return fd;
}

bool write_all(int fd, std::string_view data) {
    while (!data.empty()) {
        const ssize_t n = send(fd, data.data(), data.size(), MSG_NOSIGNAL);
        if (n <= 0) return false;
        data.remove_prefix(static_cast<std::size_t>(n));
    }
    return true;
}

std::string lower(std::string_view s) {
    std::string out(s);
    for (char& c : out)
        c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return out;
}

// Blocking handshake. Bytes after the 101's head are kept in conn.in (the server may send frames at once).
bool handshake(Connection& conn, const Options& opt, std::uint64_t& rng) {
    std::uint8_t raw[16];
    for (auto& b : raw)
        b = static_cast<std::uint8_t>(xorshift(rng));
    const std::string key = base64(raw, sizeof raw);
    const std::string request = "GET " + opt.target.path + " HTTP/1.1\r\nHost: " + opt.target.host + ":" +
                                std::to_string(opt.target.port) +
                                "\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: " + key +
                                "\r\nSec-WebSocket-Version: 13\r\n\r\n";
    if (!write_all(conn.fd, request)) return false;
    std::string head;
    std::size_t end = std::string::npos;
    char buf[4096];
    while ((end = head.find("\r\n\r\n")) == std::string::npos) {
        const ssize_t n = recv(conn.fd, buf, sizeof buf, 0);
        if (n <= 0 || head.size() > 65536) return false;
        head.append(buf, static_cast<std::size_t>(n));
    }
    conn.in = head.substr(end + 4);
    head.resize(end + 2);
    if (head.rfind("HTTP/1.1 101", 0) != 0) return false;
    const std::string lowered = lower(head);
    const std::size_t at = lowered.find("\r\nsec-websocket-accept:");
    if (at == std::string::npos) return false;
    std::size_t value = at + std::strlen("\r\nsec-websocket-accept:");
    while (value < head.size() && (head[value] == ' ' || head[value] == '\t'))
        ++value;
    const std::size_t value_end = head.find("\r\n", value);
    std::string accept = head.substr(value, value_end - value);
    while (!accept.empty() && (accept.back() == ' ' || accept.back() == '\t'))
        accept.pop_back();
    // An extension the client did not offer is a protocol error (RFC 6455 section 4.1).
    return accept == accept_for(key) && lowered.find("\r\nsec-websocket-extensions:") == std::string::npos;
}

// ---- the load loop ----

class Load {
  public:
    explicit Load(const Options& opt) : opt_(opt), rng_(0x9E3779B97F4A7C15ull) {}

    int run();

  private:
    void open_connections();
    void send_next(Connection& conn);
    void say_goodbye(Connection& conn);
    bool flush(Connection& conn);
    bool on_readable(Connection& conn);
    bool parse_frames(Connection& conn);
    void on_message(Connection& conn, std::string_view data);
    void drop(Connection& conn, std::uint64_t Errors::*counter);
    bool want_more() const { return opt_.messages == 0 || sent_ < opt_.messages; }
    bool done() const { return open_ == 0 || (opt_.messages > 0 && received_ >= opt_.messages); }
    void print(double elapsed_s, bool timed_out);

    Options opt_;
    std::uint64_t rng_;
    int epoll_ = -1;
    std::vector<Connection> conns_;
    int open_ = 0;
    Errors errors_;
    std::uint64_t sent_ = 0, received_ = 0, bad_echoes_ = 0;
    bool measuring_ = true;
    std::vector<std::uint32_t> latency_ns_;  // saturating at ~4.29 s
};

void Load::open_connections() {
    conns_.resize(static_cast<std::size_t>(opt_.target.connections));
    for (int i = 0; i < opt_.target.connections; ++i) {
        Connection& c = conns_[static_cast<std::size_t>(i)];
        c.index = i;
        c.fd = connect_to(opt_);
        if (c.fd < 0) {
            ++errors_.connect;
            continue;
        }
        if (!handshake(c, opt_, rng_)) {
            ++errors_.handshake;
            close(c.fd);
            c.fd = -1;
            continue;
        }
        fcntl(c.fd, F_SETFL, fcntl(c.fd, F_GETFL) | O_NONBLOCK);
        epoll_event ev{};
        ev.events = EPOLLIN;
        ev.data.u32 = static_cast<std::uint32_t>(i);
        epoll_ctl(epoll_, EPOLL_CTL_ADD, c.fd, &ev);
        ++open_;
    }
}

// A close frame (1000) so that servers log a normal close rather than a dropped connection; the answer is not awaited.
void Load::say_goodbye(Connection& conn) {
    if (conn.fd < 0) return;
    std::string frame;
    append_frame(frame, 0x8, std::string_view("\x03\xe8", 2), rng_);
    (void)send(conn.fd, frame.data(), frame.size(), MSG_NOSIGNAL);
    shutdown(conn.fd, SHUT_WR);
    drop(conn, nullptr);
}

void Load::send_next(Connection& conn) {
    const std::uint64_t seq = conn.next_seq++;
    append_frame(conn.out, 0x1, payload_for(conn.index, seq, opt_.size), rng_);
    conn.in_flight.emplace_back(seq, Clock::now());
    ++sent_;
}

bool Load::flush(Connection& conn) {
    return load::flush_and_arm(epoll_, conn.fd, static_cast<std::uint32_t>(conn.index), conn.out, conn.out_off,
                               conn.writable_armed);
}

void Load::drop(Connection& conn, std::uint64_t Errors::*counter) {
    if (conn.fd < 0) return;
    if (counter != nullptr) ++(errors_.*counter);
    epoll_ctl(epoll_, EPOLL_CTL_DEL, conn.fd, nullptr);
    close(conn.fd);
    conn.fd = -1;
    --open_;
}

void Load::on_message(Connection& conn, std::string_view data) {
    if (conn.in_flight.empty()) {
        ++errors_.protocol;  // an echo of nothing
        return;
    }
    const auto [seq, sent_at] = conn.in_flight.front();
    conn.in_flight.pop_front();
    if (!measuring_) return;
    const auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - sent_at).count();
    latency_ns_.push_back(static_cast<std::uint32_t>(std::min<long long>(ns, 0xffffffffll)));
    ++received_;
    if (data != payload_for(conn.index, seq, opt_.size)) ++bad_echoes_;
    if (want_more()) send_next(conn);
}

// Parses whole frames from conn.in; false on a protocol violation or a close from the server.
bool Load::parse_frames(Connection& conn) {
    std::size_t pos = 0;
    const auto* in = reinterpret_cast<const std::uint8_t*>(conn.in.data());
    while (conn.in.size() - pos >= 2) {
        const std::uint8_t b0 = in[pos], b1 = in[pos + 1];
        if ((b1 & 0x80) != 0 || (b0 & 0x70) != 0) return false;  // masked by the server, or RSV bits set
        std::uint64_t len = b1 & 0x7f;
        std::size_t head = 2;
        if (len >= 126) {
            head = len == 126 ? 4 : 10;
            if (conn.in.size() - pos < head) break;
            len = 0;
            for (std::size_t i = 2; i < head; ++i)
                len = (len << 8) | in[pos + i];
        }
        if (conn.in.size() - pos < head + len) break;
        const std::string_view payload(conn.in.data() + pos + head, static_cast<std::size_t>(len));
        const std::uint8_t opcode = b0 & 0x0f;
        const bool fin = (b0 & 0x80) != 0;
        pos += head + static_cast<std::size_t>(len);
        if (opcode == 0x8) return false;
        if (opcode == 0x9) {
            append_frame(conn.out, 0xA, payload, rng_);
        } else if (opcode == 0x1 || opcode == 0x2 || opcode == 0x0) {
            if (opcode != 0x0) conn.fragments.clear();
            if (fin && opcode != 0x0) {
                on_message(conn, payload);
            } else {
                conn.fragments.append(payload);
                if (fin) on_message(conn, conn.fragments);
            }
        } else if (opcode != 0xA) {
            return false;
        }
    }
    conn.in.erase(0, pos);
    return true;
}

bool Load::on_readable(Connection& conn) {
    const int r = load::receive_available(conn.fd, conn.in);
    if (r > 0) return true;
    drop(conn, r == 0 ? &Errors::closed : &Errors::read);
    return false;
}

int Load::run() {
    epoll_ = epoll_create1(EPOLL_CLOEXEC);
    open_connections();
    const auto start = Clock::now();
    const auto limit = opt_.messages > 0 ? opt_.timeout_s : opt_.duration_s;
    const auto deadline = start + std::chrono::microseconds(static_cast<long long>(limit * 1e6));
    for (auto& c : conns_) {
        if (c.fd < 0) continue;
        for (int i = 0; i < opt_.depth && want_more(); ++i)
            send_next(c);
        if (!flush(c)) drop(c, &Errors::write);
    }
    std::vector<epoll_event> events(static_cast<std::size_t>(std::max(1, opt_.target.connections)));
    auto now = Clock::now();
    while (now < deadline && !done()) {
        const auto left_ms = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - now).count();
        const int n = epoll_wait(epoll_, events.data(), static_cast<int>(events.size()),
                                 static_cast<int>(std::min<long long>(left_ms + 1, 100)));
        for (int i = 0; i < n; ++i) {
            Connection& c = conns_[events[static_cast<std::size_t>(i)].data.u32];
            if (c.fd < 0) continue;
            if ((events[static_cast<std::size_t>(i)].events & (EPOLLIN | EPOLLERR | EPOLLHUP)) != 0) {
                if (!on_readable(c)) continue;
                if (!parse_frames(c)) {
                    drop(c, &Errors::protocol);
                    continue;
                }
            }
            if (!flush(c)) drop(c, &Errors::write);
        }
        now = Clock::now();
    }
    measuring_ = false;
    const double elapsed = std::chrono::duration<double>(now - start).count();
    const bool timed_out = opt_.messages > 0 && received_ < opt_.messages;
    print(elapsed, timed_out);
    for (auto& c : conns_)
        say_goodbye(c);
    close(epoll_);
    return conns_.empty() || errors_.connect + errors_.handshake == conns_.size() ? 1 : 0;
}

void Load::print(double elapsed_s, bool timed_out) {
    std::printf(
        "{\"tool\":\"ws_load\",\"connections\":%d,\"connected\":%llu,\"depth\":%d,\"size\":%zu,"
        "\"duration_s\":%.6f,\"messages\":%llu,\"sent\":%llu,\"msgs_per_s\":%.1f,\"bad_echoes\":%llu,"
        "\"timed_out\":%s,\"errors\":{\"connect\":%llu,\"handshake\":%llu,\"read\":%llu,\"write\":%llu,"
        "\"closed\":%llu,\"protocol\":%llu},",
        opt_.target.connections, static_cast<unsigned long long>(conns_.size() - errors_.connect - errors_.handshake),
        opt_.depth, opt_.size, elapsed_s, static_cast<unsigned long long>(received_),
        static_cast<unsigned long long>(sent_), elapsed_s > 0 ? received_ / elapsed_s : 0.0,
        static_cast<unsigned long long>(bad_echoes_), timed_out ? "true" : "false",
        static_cast<unsigned long long>(errors_.connect), static_cast<unsigned long long>(errors_.handshake),
        static_cast<unsigned long long>(errors_.read), static_cast<unsigned long long>(errors_.write),
        static_cast<unsigned long long>(errors_.closed), static_cast<unsigned long long>(errors_.protocol));
    load::print_latency_tail(latency_ns_);
}

[[noreturn]] void usage(const char* why) {
    std::fprintf(stderr,
                 "ws_load: %s\nusage: ws_load --port N [--host 127.0.0.1] [--path /ws] [--connections 64] "
                 "[--depth 1] [--size 32] [--duration S | --messages N [--timeout S]]\n",
                 why);
    std::exit(2);
}

Options parse_options(int argc, char** argv) {
    Options opt;
    load::parse_flags(
        argc, argv, opt.target,
        [&opt](std::string_view flag, const char* value) {
            if (flag == "--depth") {
                opt.depth = std::atoi(value);
            } else if (flag == "--size") {
                opt.size = static_cast<std::size_t>(std::atoll(value));
            } else if (flag == "--duration") {
                opt.duration_s = std::atof(value);
            } else if (flag == "--messages") {
                opt.messages = static_cast<std::uint64_t>(std::atoll(value));
            } else if (flag == "--timeout") {
                opt.timeout_s = std::atof(value);
            } else {
                return false;
            }
            return true;
        },
        usage);
    if (opt.depth < 1 || opt.size < 1) usage("--depth and --size must be >= 1");
    if (opt.duration_s <= 0 || opt.timeout_s <= 0) usage("--duration and --timeout must be > 0");
    return opt;
}

}  // namespace

int main(int argc, char** argv) {
    Load load(parse_options(argc, argv));
    return load.run();
}
