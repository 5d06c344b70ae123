// The access log: compact records from the I/O threads, JSON lines formatted and written by one writer thread.
#include "server/observe/access_log.h"

#include <poll.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <ctime>
#include <limits>
#include <type_traits>

#include "json/writer.h"

namespace slipstream::server {

namespace {

// Emptied batches kept for the I/O threads to reuse (each holds up to ~64 KiB).
constexpr std::size_t kMaxSpareBatches = 16;

// The strings of a record, in the order their bytes follow its head.
enum Field : std::size_t { kMethod, kRoute, kPath, kRequestId, kTraceId, kFieldCount };

// The fixed part of a record; the strings' bytes follow it. Copied with memcpy: records are unaligned.
// Lengths are clamped to 4 GiB (no request head comes near).
struct RecordHead {
    std::int64_t wall_nanos;
    std::int64_t duration_nanos;
    std::uint64_t response_bytes;
    net::SocketAddress peer;
    std::uint32_t lengths[kFieldCount];
    std::int32_t status;
    bool aborted;
};
static_assert(std::is_trivially_copyable_v<RecordHead>);

std::uint32_t clamp_length(std::size_t n) {
    return static_cast<std::uint32_t>(std::min<std::size_t>(n, std::numeric_limits<std::uint32_t>::max()));
}

void append_uint(std::string& out, std::uint64_t v) {
    char buf[24];
    auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
    out.append(buf, end);
}

// Milliseconds with three decimals from nanoseconds, without floating point ("0.042").
void append_millis(std::string& out, std::int64_t nanos) {
    std::uint64_t micros = static_cast<std::uint64_t>(nanos > 0 ? nanos : 0) / 1000;
    append_uint(out, micros / 1000);
    char frac[4] = {'.', static_cast<char>('0' + micros / 100 % 10), static_cast<char>('0' + micros / 10 % 10),
                    static_cast<char>('0' + micros % 10)};
    out.append(frac, 4);
}

}  // namespace

void AccessBatch::append(const AccessEntry& e) {
    const std::string_view strings[kFieldCount] = {e.method, e.route, e.path, e.request_id, e.trace_id};
    RecordHead head;
    head.wall_nanos = e.wall_nanos;
    head.duration_nanos = e.duration_nanos;
    head.response_bytes = e.response_bytes;
    if (e.peer != nullptr) head.peer = *e.peer;
    head.status = static_cast<std::int32_t>(e.status);
    head.aborted = e.aborted;
    std::size_t total = sizeof head;
    for (std::size_t i = 0; i < kFieldCount; ++i) {
        head.lengths[i] = clamp_length(strings[i].size());
        total += head.lengths[i];
    }
    if (capacity_ - size_ < total) [[unlikely]]
        grow(total);
    char* p = data_.get() + size_;
    std::memcpy(p, &head, sizeof head);
    p += sizeof head;
    for (std::size_t i = 0; i < kFieldCount; ++i) {
        if (head.lengths[i] != 0) std::memcpy(p, strings[i].data(), head.lengths[i]);  // data() may be null
        p += head.lengths[i];
    }
    size_ += total;
    ++count_;
}

void AccessBatch::grow(std::size_t more) {
    std::size_t capacity = std::max<std::size_t>(capacity_ * 2, 4096);
    while (capacity - size_ < more)
        capacity *= 2;
    auto data = std::make_unique_for_overwrite<char[]>(capacity);
    if (size_ != 0) std::memcpy(data.get(), data_.get(), size_);
    data_ = std::move(data);
    capacity_ = capacity;
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

std::size_t AccessLineFormatter::format(std::string_view records, std::string& out) {
    std::size_t lines = 0;
    while (records.size() >= sizeof(RecordHead)) {
        RecordHead head;
        std::memcpy(&head, records.data(), sizeof head);
        std::string_view s[kFieldCount];
        std::size_t at = sizeof head;
        for (std::size_t i = 0; i < kFieldCount; ++i) {
            if (records.size() - at < head.lengths[i]) return lines;  // a cut record: batches hold whole ones
            s[i] = records.substr(at, head.lengths[i]);
            at += head.lengths[i];
        }
        records.remove_prefix(at);
        if (!have_peer_ || std::memcmp(last_peer_, &head.peer, sizeof last_peer_) != 0) {
            std::memcpy(last_peer_, &head.peer, sizeof last_peer_);
            have_peer_ = true;
            peer_len_ = head.peer.format(peer_text_, sizeof peer_text_);
        }

        out.append(R"({"time":")");
        clock_.append(out, head.wall_nanos);
        out.append(R"(","method":)");
        json::Writer(out).string(s[kMethod]);  // a fresh writer per value: no separators between them
        out.append(R"(,"route":)");
        json::Writer(out).string(s[kRoute]);
        out.append(R"(,"path":)");
        json::Writer(out).string(s[kPath]);
        out.append(R"(,"status":)");
        append_uint(out, static_cast<std::uint64_t>(head.status));
        out.append(R"(,"duration_ms":)");
        append_millis(out, head.duration_nanos);
        out.append(R"(,"bytes":)");
        append_uint(out, head.response_bytes);
        out.append(R"(,"request_id":")");
        out.append(s[kRequestId]);
        out.append(R"(","trace_id":")");
        out.append(s[kTraceId]);
        out.append(R"(","peer":")");
        out.append(peer_text_, peer_len_);
        out.append(head.aborted ? "\",\"aborted\":true}\n" : "\"}\n");
        ++lines;
    }
    return lines;
}

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

void AccessLog::submit(AccessBatch& batch) {
    if (batch.empty()) return;
    bool wake = false;
    {
        std::lock_guard lock(mu_);
        if (pending_bytes_ + batch.size() > max_pending_) {
            dropped_.inc(batch.count());
        } else {
            wake = pending_.empty();  // the writer is idle or about to look: one wake-up per hand-over
            pending_bytes_ += batch.size();
            pending_.push_back(std::move(batch));
            if (!spare_.empty()) {
                batch = std::move(spare_.back());
                spare_.pop_back();
            }
        }
    }
    batch.clear();
    if (wake) cv_.notify_one();
}

void AccessLog::run() {
    // Formatting happens here, off the I/O threads; the buffers keep their memory between rounds.
    AccessLineFormatter formatter;
    std::vector<AccessBatch> taken;
    std::string text;
    for (;;) {
        {
            std::unique_lock lock(mu_);
            cv_.wait_for(lock, flush_interval_, [this] { return stop_ || !pending_.empty(); });
            if (pending_.empty()) {
                if (stop_) return;
                continue;
            }
            taken.swap(pending_);
            pending_bytes_ = 0;
        }
        for (const AccessBatch& batch : taken)
            formatter.format(batch.bytes(), text);
        write_all(text);
        text.clear();
        {
            std::lock_guard lock(mu_);
            for (AccessBatch& batch : taken) {
                if (spare_.size() >= kMaxSpareBatches) break;
                batch.clear();
                spare_.push_back(std::move(batch));
            }
        }
        taken.clear();
    }
}

void AccessLog::write_all(const std::string& text) {
    std::size_t off = 0;
    while (off < text.size()) {
        // Wait for the target to take bytes; after stop, give up on a target that stays blocked so
        // a full pipe cannot hold the process at exit.
        pollfd p{fd_, POLLOUT, 0};
        int ready = ::poll(&p, 1, 1000);
        if (ready == 0) {
            std::lock_guard lock(mu_);
            if (stop_) return;
            continue;
        }
        ssize_t n = ::write(fd_, text.data() + off, text.size() - off);
        if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
        if (n <= 0) return;  // the log target is gone: drop this batch
        off += static_cast<std::size_t>(n);
    }
}

}  // namespace slipstream::server
