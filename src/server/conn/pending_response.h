// PendingResponse: the state an asynchronous handler's Responder shares with the connection.
#pragma once

#include <atomic>
#include <memory>
#include <mutex>
#include <string>

#include "net/event_loop.h"
#include "net/timer.h"
#include "server/conn/response_sink.h"
#include "server/conn/stream_control.h"
#include "server/core/handler_count.h"
#include "server/core/request_state.h"

namespace slipstream::server {
class SinkLink;
}

namespace slipstream::detail {

/// A loop that may be gone: Responders on other threads post through it, and the worker clears it
/// before its loop is destroyed, so a very late answer is dropped instead of touching freed memory.
class LoopRef {
  public:
    explicit LoopRef(net::EventLoop* loop) : loop_(loop) {}
    /// Posts `task` unless the loop is gone. Returns false when dropped. Any thread.
    bool post(net::Task task) {
        std::lock_guard lock(mutex_);
        if (loop_ == nullptr) return false;
        loop_->post(std::move(task));
        return true;
    }
    void clear() {
        std::lock_guard lock(mutex_);
        loop_ = nullptr;
    }

  private:
    std::mutex mutex_;
    net::EventLoop* loop_;
};

/// Created on the loop thread for each asynchronous request. The Responder may live on any thread;
/// everything it does is posted to `loop`. sink() is read only on the loop thread: it is set while the
/// protocol's server::SinkLink to this answer lives, and null once that link is gone (late answers are dropped).
struct PendingResponse {
    std::shared_ptr<LoopRef> loop;
    RequestState request;                // detached: owns its bytes
    net::Timer handler_timer;            // loop thread only; runs only while linked to a sink
    std::atomic<bool> answered{false};   // send() or start_stream() was called
    std::atomic<bool> ended{false};      // the response is complete (or was abandoned)
    std::atomic<bool> cancelled{false};  // the client left, or the handler timed out
    server::StreamControl stream;        // streamed responses: encoder, SSE heartbeats, cancel callback
    // Counted while the handler runs (until the last reference goes, on whatever thread drops it).
    server::HandlerCount::Ticket admitted;  // the process-wide count (max_handlers_in_flight)
    server::HandlerCount::Ticket held;      // an HTTP/2 stream reset while its handler ran: its connection's count

    /// The client left or the server cut the request: sets `cancelled` and runs the cancel callback. Loop thread.
    void cancel() {
        cancelled.store(true);
        stream.cancel(*loop);
    }

    /// Where answers go now: null once the protocol let go of this request (its SinkLink is gone). Loop thread.
    server::ResponseSink* sink() const { return sink_; }

  private:
    friend class server::SinkLink;
    server::ResponseSink* sink_ = nullptr;
};

}  // namespace slipstream::detail

namespace slipstream::server {

/// A protocol's hold on one asynchronous answer (an HTTP/1.1 slot's, an HTTP/2 stream's): it owns a reference to
/// the PendingResponse and, while it lives, routes that response's answers to its sink. Dropping it (the
/// answer was written, the stream was reset, the connection closed) cuts the route and stops the handler timer,
/// whose callback may point at the sink. Move-only; loop thread only.
class SinkLink {
  public:
    SinkLink() = default;
    SinkLink(std::shared_ptr<slipstream::detail::PendingResponse> pending, ResponseSink& sink)
        : pending_(std::move(pending)) {
        pending_->sink_ = &sink;
    }
    SinkLink(SinkLink&& other) noexcept = default;
    SinkLink& operator=(SinkLink&& other) noexcept {
        if (this != &other) {
            cut();
            pending_ = std::move(other.pending_);
        }
        return *this;
    }
    SinkLink(const SinkLink&) = delete;
    SinkLink& operator=(const SinkLink&) = delete;
    ~SinkLink() { cut(); }

    explicit operator bool() const { return pending_ != nullptr; }
    slipstream::detail::PendingResponse* get() const { return pending_.get(); }
    slipstream::detail::PendingResponse* operator->() const { return pending_.get(); }
    slipstream::detail::PendingResponse& operator*() const { return *pending_; }
    /// Another reference to the response (kept across a call that may drop this link).
    const std::shared_ptr<slipstream::detail::PendingResponse>& shared() const { return pending_; }

    /// Lets go: later answers are dropped.
    void reset() {
        cut();
        pending_.reset();
    }
    /// The sink is gone before the answer ended (the client left, the connection closed): lets go and cancels the
    /// request, so its producer hears of it (on_cancel runs).
    void cancel() {
        std::shared_ptr<slipstream::detail::PendingResponse> p = std::move(pending_);
        if (!p) return;
        p->sink_ = nullptr;
        p->handler_timer.cancel();
        p->cancel();
    }

  private:
    void cut() {
        if (!pending_) return;
        pending_->sink_ = nullptr;
        if (pending_->handler_timer.scheduled()) pending_->handler_timer.cancel();
    }

    std::shared_ptr<slipstream::detail::PendingResponse> pending_;
};

}  // namespace slipstream::server
