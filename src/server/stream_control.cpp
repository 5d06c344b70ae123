// StreamControl: compression per chunk, heartbeat timer and cancel notification of one streamed response.
#include "server/stream_control.h"

#include <exception>

#include "base/log.h"
#include "http/compression/encoding.h"
#include "http/sse/event_encoder.h"
#include "server/coding_metrics.h"
#include "server/compression_policy.h"
#include "server/connection.h"
#include "server/content_coding.h"
#include "server/pending_response.h"

namespace slipstream::server {
namespace {

void run_guarded(const std::function<void()>& fn) {
    try {
        fn();
    } catch (const std::exception& e) {
        base::log_message(base::LogLevel::kError, std::string("stream cancel callback threw: ") + e.what());
    } catch (...) {
        base::log_message(base::LogLevel::kError, "stream cancel callback threw a non-exception");
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
    return tail;
}

void StreamControl::cancel(slipstream::detail::LoopRef& loop) {
    if (active_) metrics_->streams_cancelled.inc();
    stop();
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

void StreamControl::on_heartbeat() {
    base::MonoNanos now = loop_->now();
    if (now - last_write_ >= heartbeat_nanos_ && pending_->connection != nullptr) {
        metrics_->sse_heartbeats.inc();
        pending_->connection->deliver_stream_chunk(*pending_, std::string(http::sse::kHeartbeat));
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
