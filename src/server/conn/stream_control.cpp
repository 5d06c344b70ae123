// StreamControl: compression per chunk, heartbeat timer, cancel notification and flow control of one stream.
#include "server/conn/stream_control.h"

#include <exception>

#include "base/log.h"
#include "http/compression/encoding.h"
#include "http/sse/event_encoder.h"
#include "server/coding/compression_policy.h"
#include "server/coding/content_coding.h"
#include "server/conn/pending_response.h"
#include "server/observe/coding_metrics.h"

namespace slipstream::server {
namespace {

void run_guarded(const std::function<void()>& fn) {
    try {
        fn();
    } catch (const std::exception& e) {
        base::log_message(base::LogLevel::kError, std::string("stream callback threw: ") + e.what());
    } catch (...) {
        base::log_message(base::LogLevel::kError, "stream callback threw a non-exception");
    }
}

bool is_event_stream(const Response& head) {
    std::string_view type = response_content_type(head);
    std::string_view media = http::compression::trim_ows(type.substr(0, type.find(';')));
    return http::compression::ascii_iequals(media, "text/event-stream");
}

}  // namespace

StreamControl::~StreamControl() {
    // finish() or cancel() ran on the loop thread before the last owner let go (see the class comment).
    SLIPSTREAM_ASSERT(!heartbeat_.scheduled());
}

void StreamControl::on_cancel(std::function<void()> fn) {
    std::unique_lock lock(mutex_);
    if (cancelled_) {
        lock.unlock();
        if (fn) run_guarded(fn);
        return;
    }
    cancel_fn_ = std::move(fn);
}

void StreamControl::set_event_stream(std::optional<std::uint32_t> heartbeat_ms) {
    std::lock_guard lock(mutex_);
    event_stream_ = true;
    heartbeat_ms_ = heartbeat_ms;
}

void StreamControl::begin(slipstream::detail::PendingResponse& pending, Response& head, bool valid,
                          ContentCoding& coding, net::EventLoop& loop, std::uint32_t default_heartbeat_ms) {
    if (!valid || active_) return;
    bool sse;
    std::uint32_t interval;
    {
        std::lock_guard lock(mutex_);
        sse = event_stream_ || is_event_stream(head);
        interval = heartbeat_ms_.value_or(default_heartbeat_ms);
    }
    pending_ = &pending;
    loop_ = &loop;
    sse_ = sse;
    metrics_ = &coding.metrics();
    encoder_ = coding.start_stream(pending.request.headers, head);
    active_ = true;
    metrics_->streams_open.inc();
    last_write_ = loop.now();
    if (sse && interval > 0) {
        heartbeat_nanos_ = std::int64_t{interval} * base::kNanosPerMilli;
        heartbeat_.set_callback([this] { on_heartbeat(); });
        loop.schedule_after(heartbeat_, heartbeat_nanos_);
    }
}

std::string StreamControl::transform(std::string&& chunk) {
    if (!active_) return std::move(chunk);
    last_write_ = loop_->now();
    if (!encoder_ || chunk.empty()) return std::move(chunk);
    std::string wire;
    if (!encoder_->write_chunk(chunk, wire).is_ok()) {
        base::log_message(base::LogLevel::kError, "stream compression failed; the chunk is dropped");
        return {};
    }
    return wire;
}

std::string StreamControl::finish(bool aborted) {
    std::string tail;
    if (active_ && encoder_ && !aborted && !encoder_->finish(tail).is_ok()) tail.clear();
    stop();
    close_flow();
    return tail;
}

void StreamControl::cancel(slipstream::detail::LoopRef& loop) {
    if (active_) metrics_->streams_cancelled.inc();
    stop();
    close_flow();
    std::function<void()> fn;
    {
        std::lock_guard lock(mutex_);
        if (cancelled_) return;
        cancelled_ = true;
        fn = std::move(cancel_fn_);
    }
    if (!fn) return;
    // Posted: the callback runs after the connection finished closing, never inside it.
    auto shared = std::make_shared<std::function<void()>>(std::move(fn));
    if (!loop.post([shared] { run_guarded(*shared); })) run_guarded(*shared);
}

// ---- flow control ----
// Lost wake-ups are ruled out Dekker-style: the producer stores waiting_ after reading backlog_ (on_writable),
// the loop stores backlog_ before reading waiting_ (set_backlog); all four are sequentially consistent.

std::size_t StreamControl::queued() const {
    std::size_t posted = posted_.load(std::memory_order_seq_cst);
    std::size_t delivered = delivered_.load(std::memory_order_seq_cst);
    return (posted > delivered ? posted - delivered : 0) + backlog_.load(std::memory_order_seq_cst);
}

void StreamControl::delivered(std::size_t bytes) {
    delivered_.fetch_add(bytes, std::memory_order_seq_cst);
    if (waiting_.load(std::memory_order_seq_cst)) maybe_wake();
}

void StreamControl::set_backlog(std::size_t bytes) {
    backlog_.store(bytes, std::memory_order_seq_cst);
    if (waiting_.load(std::memory_order_seq_cst)) maybe_wake();
}

void StreamControl::on_writable(std::function<void()> fn) {
    std::unique_lock lock(mutex_);
    if (flow_closed_ || queued() <= high_water_.load(std::memory_order_relaxed) / 2) {
        writable_fn_ = nullptr;
        waiting_.store(false, std::memory_order_seq_cst);
        lock.unlock();
        if (fn) run_guarded(fn);
        return;
    }
    writable_fn_ = std::move(fn);
    waiting_.store(writable_fn_ != nullptr, std::memory_order_seq_cst);
}

void StreamControl::maybe_wake() {
    std::function<void()> fn;
    {
        std::lock_guard lock(mutex_);
        if (!writable_fn_ || (!flow_closed_ && queued() > high_water_.load(std::memory_order_relaxed) / 2)) return;
        fn = std::move(writable_fn_);
        writable_fn_ = nullptr;
        waiting_.store(false, std::memory_order_seq_cst);
    }
    run_guarded(fn);
}

void StreamControl::close_flow() {
    {
        std::lock_guard lock(mutex_);
        flow_closed_ = true;
    }
    maybe_wake();
}

void StreamControl::on_heartbeat() {
    base::MonoNanos now = loop_->now();
    if (now - last_write_ >= heartbeat_nanos_ && pending_->sink() != nullptr) {
        metrics_->sse_heartbeats.inc();
        pending_->sink()->deliver_stream_chunk(*pending_, std::string(http::sse::kHeartbeat));
        if (!active_) return;  // delivering may have ended the stream
        last_write_ = now;
    }
    loop_->schedule_after(heartbeat_, last_write_ + heartbeat_nanos_ - now);
}

void StreamControl::stop() {
    heartbeat_.cancel();
    encoder_.reset();
    if (active_) metrics_->streams_open.dec();
    active_ = false;
}

}  // namespace slipstream::server
