// PostChannel: JSON or SSE, decided by what comes first.
#include "agent/mcp/post_channel.h"

namespace slipstream::mcp::detail {

void PostChannel::open_stream() {
    EventStreamOptions options;
    options.headers = headers_;
    stream_.emplace(std::move(*responder_), std::move(options));
    responder_.reset();
}

void PostChannel::notify(std::string message) {
    std::function<void(std::string)> fallback;
    {
        std::lock_guard lock(mu_);
        if (done_) return;
        if (!sse_) {
            fallback = fallback_;
        } else {
            if (!stream_) open_stream();
            stream_->send(message);
            return;
        }
    }
    if (fallback) fallback(std::move(message));
}

void PostChannel::answer(std::string message) {
    std::lock_guard lock(mu_);
    if (done_) return;
    done_ = true;
    if (stream_) {
        stream_->send(message);
        stream_->close();
        return;
    }
    Response r = Response::json(std::move(message));
    for (const auto& h : headers_)
        r.headers.push_back(h);
    responder_->send(std::move(r));
}

void PostChannel::abandon() {
    // A cancelled request gets no answer: an event stream without events says exactly that.
    std::lock_guard lock(mu_);
    if (done_) return;
    done_ = true;
    if (!stream_) open_stream();
    stream_->close();
}

}  // namespace slipstream::mcp::detail
