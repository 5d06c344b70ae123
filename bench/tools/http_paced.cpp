// http_paced: open-loop HTTP/1.1 load generator for bench/ (a fixed request rate over N keep-alive connections; JSON
// out).
//
// Request n of the run is due at start + n / rate on connection n mod N: the rate is spread evenly over time and
// over the connections, so no burst comes from the client. A connection whose previous answer has not arrived
// sends its due request when it does (HTTP/1.1 without pipelining), and that wait counts in the request's
// latency: latency runs from the scheduled time, not from the send, so a slow answer is not hidden by the requests
// it held back. The first --warmup seconds are not measured; then --duration seconds are. Answers are read by
// Content-Length; 2xx answers count as requests, others as non_2xx. Prints one JSON object on stdout.
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <deque>
#include <string>
#include <string_view>
#include <vector>

#include "load_common.h"

namespace {

using Clock = std::chrono::steady_clock;
using Nanos = std::chrono::nanoseconds;

struct Options {
    load::Target target{"127.0.0.1", 0, "/hello", 50};
    double rate = 20000;  // requests per second, all connections together
    double duration_s = 5.0;
    double warmup_s = 1.0;
    double grace_s = 2.0;  // after the last due request: how long answers still in flight are awaited
};

struct Errors {
    std::uint64_t connect = 0, read = 0, write = 0, closed = 0, protocol = 0, unanswered = 0;
};

struct Pending {
    Clock::time_point due;
    bool measured;
};

struct Connection {
    int fd = -1;
    int index = 0;
    std::string in;
    std::string out;
    std::size_t out_off = 0;
    bool writable_armed = false;
    bool busy = false;            // a request is on the wire
    Pending current{};            // the request on the wire
    std::deque<Pending> backlog;  // due while busy: sent one after the other
};

int connect_to(const Options& opt) {
    const int fd = load::connect_tcp(opt.target.host, opt.target.port);
    if (fd >= 0) fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
    return fd;
}

// The Content-Length of a response head (lowercase compare), or -1 when there is none or it is not a number.
long long content_length(std::string_view head) {
    static constexpr std::string_view kName = "content-length:";
    for (std::size_t at = head.find('\n'); at != std::string_view::npos; at = head.find('\n', at + 1)) {
        std::string_view line = head.substr(at + 1);
        if (line.size() < kName.size()) break;
        bool match = true;
        for (std::size_t i = 0; i < kName.size() && match; ++i)
            match = static_cast<char>(std::tolower(static_cast<unsigned char>(line[i]))) == kName[i];
        if (!match) continue;
        std::size_t i = kName.size();
        while (i < line.size() && (line[i] == ' ' || line[i] == '\t'))
            ++i;
        long long v = 0;
        std::size_t digits = 0;
        for (; i < line.size() && line[i] >= '0' && line[i] <= '9'; ++i, ++digits)
            v = v * 10 + (line[i] - '0');
        return digits > 0 ? v : -1;
    }
    return -1;
}

class Load {
  public:
    explicit Load(const Options& opt) : opt_(opt) {}
    int run();

  private:
    Clock::time_point due_time(std::uint64_t n) const {
        return start_ + Nanos(static_cast<long long>(static_cast<double>(n) * 1e9 / opt_.rate));
    }
    void release_due(Clock::time_point now);
    void send(Connection& c, Pending p);
    bool flush(Connection& c);
    bool on_readable(Connection& c);
    bool parse_responses(Connection& c);
    void on_response(Connection& c, int status);
    void drop(Connection& c, std::uint64_t Errors::*counter);
    bool idle() const;
    void print(double measured_s);

    Options opt_;
    std::string request_;
    int epoll_ = -1;
    std::vector<Connection> conns_;
    Clock::time_point start_, measure_from_, measure_to_;
    std::uint64_t next_ = 0;  // the next request number to release
    std::uint64_t sent_ = 0, ok_ = 0, non_2xx_ = 0, measured_due_ = 0;
    Errors errors_;
    std::vector<std::uint32_t> latency_ns_;  // saturating at ~4.29 s
};

void Load::release_due(Clock::time_point now) {
    while (due_time(next_) <= now && due_time(next_) < measure_to_) {
        const Clock::time_point due = due_time(next_);
        Connection& c = conns_[next_ % conns_.size()];
        ++next_;
        const bool measured = due >= measure_from_;
        measured_due_ += measured ? 1 : 0;
        if (c.fd < 0) {
            errors_.unanswered += measured ? 1 : 0;
            continue;
        }
        if (c.busy) {
            c.backlog.push_back({due, measured});
        } else {
            send(c, {due, measured});
            if (!flush(c)) drop(c, &Errors::write);
        }
    }
}

void Load::send(Connection& c, Pending p) {
    c.out.append(request_);
    c.busy = true;
    c.current = p;
    ++sent_;
}

bool Load::flush(Connection& c) {
    return load::flush_and_arm(epoll_, c.fd, static_cast<std::uint32_t>(c.index), c.out, c.out_off, c.writable_armed);
}

void Load::drop(Connection& c, std::uint64_t Errors::*counter) {
    if (c.fd < 0) return;
    if (counter != nullptr) ++(errors_.*counter);
    std::uint64_t lost = c.busy && c.current.measured ? 1 : 0;
    for (const Pending& p : c.backlog)
        lost += p.measured ? 1 : 0;
    errors_.unanswered += lost;
    c.backlog.clear();
    c.busy = false;
    epoll_ctl(epoll_, EPOLL_CTL_DEL, c.fd, nullptr);
    close(c.fd);
    c.fd = -1;
}

void Load::on_response(Connection& c, int status) {
    if (!c.busy) {
        ++errors_.protocol;  // an answer to nothing
        return;
    }
    const Pending p = c.current;
    c.busy = false;
    if (p.measured) {
        const auto ns = std::chrono::duration_cast<Nanos>(Clock::now() - p.due).count();
        if (status >= 200 && status < 300) {
            ++ok_;
            latency_ns_.push_back(static_cast<std::uint32_t>(std::clamp<long long>(ns, 0, 0xffffffffll)));
        } else {
            ++non_2xx_;
        }
    }
    if (!c.backlog.empty()) {
        send(c, c.backlog.front());
        c.backlog.pop_front();
    }
}

// Parses whole responses from c.in; false on a response this tool cannot frame (no Content-Length).
bool Load::parse_responses(Connection& c) {
    std::size_t pos = 0;
    for (;;) {
        const std::size_t end = c.in.find("\r\n\r\n", pos);
        if (end == std::string::npos) break;
        const std::string_view head(c.in.data() + pos, end + 2 - pos);
        if (head.size() < 12 || head.substr(0, 5) != "HTTP/") return false;
        const int status = std::atoi(std::string(head.substr(9, 3)).c_str());
        const long long length = content_length(head);
        if (length < 0) return false;
        const std::size_t total = end + 4 - pos + static_cast<std::size_t>(length);
        if (c.in.size() - pos < total) break;
        pos += total;
        on_response(c, status);
    }
    c.in.erase(0, pos);
    return true;
}

bool Load::on_readable(Connection& c) {
    const int r = load::receive_available(c.fd, c.in);
    if (r > 0) return true;
    drop(c, r == 0 ? &Errors::closed : &Errors::read);
    return false;
}

bool Load::idle() const {
    for (const Connection& c : conns_)
        if (c.fd >= 0 && (c.busy || !c.backlog.empty())) return false;
    return true;
}

int Load::run() {
    request_ = "GET " + opt_.target.path + " HTTP/1.1\r\nHost: " + opt_.target.host + ":" +
               std::to_string(opt_.target.port) + "\r\n\r\n";
    epoll_ = epoll_create1(EPOLL_CLOEXEC);
    conns_.resize(static_cast<std::size_t>(opt_.target.connections));
    int connected = 0;
    for (int i = 0; i < opt_.target.connections; ++i) {
        Connection& c = conns_[static_cast<std::size_t>(i)];
        c.index = i;
        c.fd = connect_to(opt_);
        if (c.fd < 0) {
            ++errors_.connect;
            continue;
        }
        epoll_event ev{};
        ev.events = EPOLLIN;
        ev.data.u32 = static_cast<std::uint32_t>(i);
        epoll_ctl(epoll_, EPOLL_CTL_ADD, c.fd, &ev);
        ++connected;
    }
    if (connected == 0) {
        print(opt_.duration_s);
        return 1;
    }
    auto seconds = [](double s) { return Nanos(static_cast<long long>(s * 1e9)); };
    start_ = Clock::now();
    measure_from_ = start_ + seconds(opt_.warmup_s);
    measure_to_ = measure_from_ + seconds(opt_.duration_s);
    const Clock::time_point give_up = measure_to_ + seconds(opt_.grace_s);
    std::vector<epoll_event> events(static_cast<std::size_t>(opt_.target.connections));
    for (Clock::time_point now = Clock::now(); now < give_up; now = Clock::now()) {
        release_due(now);
        const bool sending = due_time(next_) < measure_to_;
        if (!sending && idle()) break;
        // Sleep until the next request is due (nanosecond timeout), or until an answer arrives.
        const Clock::time_point wake = sending ? std::min(due_time(next_), give_up) : give_up;
        const long long wait_ns = std::max<long long>(0, std::chrono::duration_cast<Nanos>(wake - now).count());
        const timespec timeout{static_cast<time_t>(wait_ns / 1'000'000'000),
                               static_cast<long>(wait_ns % 1'000'000'000)};
        const int n = epoll_pwait2(epoll_, events.data(), static_cast<int>(events.size()), &timeout, nullptr);
        for (int i = 0; i < n; ++i) {
            Connection& c = conns_[events[static_cast<std::size_t>(i)].data.u32];
            if (c.fd < 0) continue;
            if ((events[static_cast<std::size_t>(i)].events & (EPOLLIN | EPOLLERR | EPOLLHUP)) != 0) {
                if (!on_readable(c)) continue;
                if (!parse_responses(c)) {
                    drop(c, &Errors::protocol);
                    continue;
                }
            }
            if (!flush(c)) drop(c, &Errors::write);
        }
    }
    for (Connection& c : conns_)
        drop(c, nullptr);  // still waiting: counted as unanswered
    print(opt_.duration_s);
    close(epoll_);
    return 0;
}

void Load::print(double measured_s) {
    std::printf(
        "{\"tool\":\"http_paced\",\"connections\":%d,\"rate\":%.1f,\"duration_s\":%.6f,\"due\":%llu,"
        "\"requests\":%llu,\"non_2xx\":%llu,\"sent\":%llu,\"requests_per_s\":%.1f,"
        "\"errors\":{\"connect\":%llu,\"read\":%llu,\"write\":%llu,\"closed\":%llu,\"protocol\":%llu,"
        "\"unanswered\":%llu},",
        opt_.target.connections, opt_.rate, measured_s, static_cast<unsigned long long>(measured_due_),
        static_cast<unsigned long long>(ok_), static_cast<unsigned long long>(non_2xx_),
        static_cast<unsigned long long>(sent_), measured_s > 0 ? static_cast<double>(ok_ + non_2xx_) / measured_s : 0.0,
        static_cast<unsigned long long>(errors_.connect), static_cast<unsigned long long>(errors_.read),
        static_cast<unsigned long long>(errors_.write), static_cast<unsigned long long>(errors_.closed),
        static_cast<unsigned long long>(errors_.protocol), static_cast<unsigned long long>(errors_.unanswered));
    load::print_latency_tail(latency_ns_);
}

[[noreturn]] void usage(const char* why) {
    std::fprintf(stderr,
                 "http_paced: %s\nusage: http_paced --port N [--host 127.0.0.1] [--path /hello] [--connections 50] "
                 "[--rate 20000] [--duration 5] [--warmup 1] [--grace 2]\n",
                 why);
    std::exit(2);
}

Options parse_options(int argc, char** argv) {
    Options opt;
    load::parse_flags(
        argc, argv, opt.target,
        [&opt](std::string_view flag, const char* value) {
            if (flag == "--rate") {
                opt.rate = std::atof(value);
            } else if (flag == "--duration") {
                opt.duration_s = std::atof(value);
            } else if (flag == "--warmup") {
                opt.warmup_s = std::atof(value);
            } else if (flag == "--grace") {
                opt.grace_s = std::atof(value);
            } else {
                return false;
            }
            return true;
        },
        usage);
    if (!(opt.rate >= 1)) usage("--rate must be >= 1");
    if (!(opt.duration_s > 0) || opt.warmup_s < 0 || opt.grace_s < 0) usage("--duration > 0, --warmup/--grace >= 0");
    return opt;
}

}  // namespace

int main(int argc, char** argv) {
    Load load(parse_options(argc, argv));
    return load.run();
}
