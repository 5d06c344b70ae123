// PendingResponse: the state an asynchronous handler's Responder shares with the connection.
#pragma once

#include <atomic>
#include <memory>
#include <mutex>
#include <string>

#include "net/event_loop.h"
#include "net/timer.h"
#include "server/core/handler_count.h"
#include "server/core/request_state.h"
#include "server/stream_control.h"

namespace slipstream::server {
class Connection;
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
/// everything it does is posted to `loop`. `connection` is touched only on the loop thread and is
/// null once the connection is gone (then late answers are dropped).
struct PendingResponse {
    std::shared_ptr<LoopRef> loop;
    server::Connection* connection = nullptr;  // loop thread only
    RequestState request;                      // detached: owns its bytes
    net::Timer handler_timer;                  // loop thread only
    std::atomic<bool> answered{false};         // send() or start_stream() was called
    std::atomic<bool> ended{false};            // the response is complete (or was abandoned)
    std::atomic<bool> cancelled{false};        // the client left, or the handler timed out
    server::StreamControl stream;              // streamed responses: encoder, SSE heartbeats, cancel callback
    // Counted while the handler runs (until the last reference goes, on whatever thread drops it).
    server::HandlerCount::Ticket admitted;  // the process-wide count (max_handlers_in_flight)
    server::HandlerCount::Ticket held;      // an HTTP/2 stream reset while its handler ran: its connection's count

    /// The client left or the server cut the request: sets `cancelled` and runs the cancel callback. Loop thread.
    void cancel() {
        cancelled.store(true);
        stream.cancel(*loop);
    }
};

}  // namespace slipstream::detail
