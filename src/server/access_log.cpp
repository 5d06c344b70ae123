// The access log writer thread and timestamp formatting.
#include "server/access_log.h"

#include <poll.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <ctime>

namespace slipstream::server {

namespace {

// Pending bytes that wake the writer before its interval is up.
constexpr std::size_t kWakeBytes = 64 * 1024;

}  // namespace

AccessLog::AccessLog(int fd, std::size_t max_pending_bytes, std::uint32_t flush_interval_ms, metrics::Counter& dropped)
    : fd_(fd), max_pending_(max_pending_bytes), flush_interval_(flush_interval_ms), dropped_(dropped), writer_([this] {
          run();
      }) {}

AccessLog::~AccessLog() {
    {
        std::lock_guard lock(mu_);
        stop_ = true;
    }
    cv_.notify_one();
    writer_.join();
}

void AccessLog::submit(std::string& batch, std::size_t count) {
    if (batch.empty()) return;
    bool wake = false;
    {
        std::lock_guard lock(mu_);
        if (pending_.size() + batch.size() > max_pending_) {
            dropped_.inc(count);
        } else {
            bool below = pending_.size() < kWakeBytes;
            pending_.append(batch);
            wake = below && pending_.size() >= kWakeBytes;
        }
    }
    batch.clear();
    if (wake) cv_.notify_one();
}

void AccessLog::run() {
    std::string writing;
    for (;;) {
        {
            std::unique_lock lock(mu_);
            cv_.wait_for(lock, flush_interval_, [this] { return stop_ || pending_.size() >= kWakeBytes; });
            if (pending_.empty()) {
                if (stop_) return;
                continue;
            }
            writing.swap(pending_);
        }
        std::size_t off = 0;
        while (off < writing.size()) {
            // Wait for the target to take bytes; after stop, give up on a target that stays blocked so
            // a full pipe cannot hold the process at exit.
            pollfd p{fd_, POLLOUT, 0};
            int ready = ::poll(&p, 1, 1000);
            if (ready == 0) {
                std::lock_guard lock(mu_);
                if (stop_) break;
                continue;
            }
            ssize_t n = ::write(fd_, writing.data() + off, writing.size() - off);
            if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
            if (n <= 0) break;  // the log target is gone: drop this batch
            off += static_cast<std::size_t>(n);
        }
        writing.clear();
    }
}

void LogClock::append(std::string& out, std::int64_t wall_nanos) {
    std::int64_t sec = wall_nanos / 1'000'000'000;
    if (sec != second_) {
        second_ = sec;
        time_t t = static_cast<time_t>(sec);
        tm parts;
        gmtime_r(&t, &parts);
        // strftime cannot overflow the buffer the way a %d directive could in the compiler's view.
        std::strftime(text_, sizeof text_, "%Y-%m-%dT%H:%M:%S", &parts);
    }
    int ms = static_cast<int>((wall_nanos / 1'000'000) % 1000);
    out.append(text_, 19);
    out.push_back('.');
    out.push_back(static_cast<char>('0' + ms / 100));
    out.push_back(static_cast<char>('0' + ms / 10 % 10));
    out.push_back(static_cast<char>('0' + ms % 10));
    out.push_back('Z');
}

}  // namespace slipstream::server
