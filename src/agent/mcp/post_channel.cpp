// PostChannel: JSON or SSE, decided by what comes first; resumable streams keep their events for a GET.
#include "agent/mcp/post_channel.h"

namespace slipstream::mcp::detail {

namespace {

std::string event_id(const std::string& stream, std::uint64_t n) {
    return stream + "-" + std::to_string(n);
}

}  // namespace

void PostChannel::open_stream() {
    EventStreamOptions options;
    options.headers = options_.headers;
    if (resumable() && options_.retry_ms) options.retry_ms = options_.retry_ms;
    stream_.emplace(std::move(*responder_), std::move(options));
    responder_.reset();
    opened_ = true;
    if (resumable() && options_.priming_event) {
        stream_->send(SseEvent{.data = "", .id = event_id(options_.stream_id, 0)});
        if (options_.recorder) options_.recorder->record(0, {}, false);  // the stream is known from its first id
    }
}

void PostChannel::emit(std::string message, bool final) {
    if (!resumable()) {
        if (stream_) stream_->send(message);
        return;
    }
    const std::uint64_t n = next_event_++;
    if (stream_ && !stream_->send(message, {}, event_id(options_.stream_id, n))) stream_.reset();  // the client left
    if (options_.recorder) options_.recorder->record(n, message, final);
    if (options_.keep_events == 0) return;
    if (kept_.size() >= options_.keep_events) kept_.pop_front();
    kept_.emplace_back(n, std::move(message));
}

void PostChannel::notify(std::string message) {
    std::function<void(std::string)> fallback;
    {
        std::lock_guard lock(mu_);
        if (done_) return;
        if (!options_.sse) {
            fallback = options_.fallback;
        } else {
            if (!opened_) open_stream();
            emit(std::move(message));
            return;
        }
    }
    if (fallback) fallback(std::move(message));
}

void PostChannel::answer(std::string message) {
    std::lock_guard lock(mu_);
    if (done_) return;
    done_ = true;
    if (opened_) {
        emit(std::move(message), true);
        if (stream_) stream_->close();
        stream_.reset();
        return;
    }
    const bool missing_capability = options_.modern && message.find(R"(,"error":{"code":-32021,)") != std::string::npos;
    Response r = Response::json(std::move(message), missing_capability ? 400 : 200);
    for (const auto& h : options_.headers)
        r.headers.push_back(h);
    responder_->send(std::move(r));
}

void PostChannel::abandon() {
    // A cancelled request gets no answer: an event stream without events says exactly that.
    std::lock_guard lock(mu_);
    if (done_) return;
    done_ = true;
    if (!opened_) open_stream();
    if (stream_) stream_->close();
    stream_.reset();
    if (resumable() && options_.recorder) options_.recorder->record(next_event_++, {}, true);  // ended, no answer
}

bool PostChannel::release() {
    std::lock_guard lock(mu_);
    if (!resumable() || done_) return false;
    if (!opened_) open_stream();
    if (stream_) stream_->close();
    stream_.reset();
    return true;
}

bool PostChannel::resume(EventStream& stream, std::uint64_t after) {
    std::lock_guard lock(mu_);
    if (!resumable() || !opened_) return false;
    for (const auto& [n, message] : kept_)
        if (n > after && !stream.send(message, {}, event_id(options_.stream_id, n))) return true;
    if (done_) {
        stream.close();
        return true;
    }
    if (stream_) stream_->close();  // the old connection, if the server had not noticed it went away
    stream_.emplace(std::move(stream));
    return true;
}

bool PostChannel::done() const {
    std::lock_guard lock(mu_);
    return done_;
}

}  // namespace slipstream::mcp::detail
