// EventStream: SSE head, event encoding and cancellation over a streaming Responder.
#include <string>

#include "http/sse/event_encoder.h"
#include "server/conn/pending_response.h"
#include "slipstream/sse.h"

namespace slipstream {

namespace sse = http::sse;

EventStream::EventStream(Responder responder, EventStreamOptions options) : responder_(std::move(responder)) {
    Response head(options.status);
    head.content_type = "text/event-stream; charset=utf-8";
    head.headers.emplace_back("Cache-Control", "no-cache");
    head.headers.emplace_back("X-Accel-Buffering", "no");  // nginx: pass events through unbuffered
    for (auto& h : options.headers)
        head.headers.push_back(std::move(h));
    if (detail::PendingResponse* p = responder_.pending()) p->stream.set_event_stream(options.heartbeat_ms);
    open_ = responder_.start_stream(std::move(head));
    if (open_ && options.retry_ms) {
        std::string bytes;
        sse::EventEncoder::append_retry(*options.retry_ms, bytes);
        write(std::move(bytes));
    }
}

EventStream::EventStream(EventStream&& other) noexcept
    : responder_(std::move(other.responder_)), open_(std::exchange(other.open_, false)) {}

EventStream& EventStream::operator=(EventStream&& other) noexcept {
    if (this != &other) {
        if (open_) responder_.end();
        responder_ = std::move(other.responder_);
        open_ = std::exchange(other.open_, false);
    }
    return *this;
}

EventStream::~EventStream() {
    if (open_) responder_.end();
}

bool EventStream::write(std::string&& bytes) {
    return open_ && responder_.write(bytes);
}

bool EventStream::send(const SseEvent& event) {
    if (!open_) return false;
    std::string bytes;
    sse::Event e{.data = event.data, .event = event.event, .id = event.id, .retry_ms = event.retry_ms};
    if (!sse::EventEncoder::append_event(e, bytes).is_ok()) return false;
    return write(std::move(bytes));
}

bool EventStream::send(std::string_view data, std::string_view event, std::string_view id) {
    return send(SseEvent{.data = data, .event = event, .id = id});
}

bool EventStream::comment(std::string_view text) {
    if (!open_) return false;
    std::string bytes;
    sse::EventEncoder::append_comment(text, bytes);
    return write(std::move(bytes));
}

bool EventStream::close() {
    if (!open_) return false;
    open_ = false;
    return responder_.end();
}

bool EventStream::writable() const {
    return responder_.writable();
}

void EventStream::on_writable(std::function<void()> fn) {
    responder_.on_writable(std::move(fn));
}

std::string format_sse_fields(const SseFields& f) {
    std::string out;
    sse::EventEncoder::append_fields(
        {.comment = f.comment, .event = f.event, .data = f.data, .id = f.id, .retry = f.retry}, out);
    return out;
}

bool EventStream::cancelled() const {
    return responder_.cancelled();
}

void EventStream::on_cancel(std::function<void()> fn) {
    responder_.on_cancel(std::move(fn));
}

}  // namespace slipstream
