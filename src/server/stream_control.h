// StreamControl: what a streamed response carries besides its bytes: its encoder, SSE heartbeats, cancel callback.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "base/clock.h"
#include "http/compression/encoder.h"
#include "net/event_loop.h"
#include "net/timer.h"
#include "slipstream/response.h"

namespace slipstream::detail {
struct PendingResponse;
class LoopRef;
}  // namespace slipstream::detail

namespace slipstream::server {

class ContentCoding;
struct CodingMetrics;

/// A member of PendingResponse. Two sides:
///  - the handler's (any thread): on_cancel(), set_event_stream() (before start_stream);
///  - the connection's (its loop thread): begin() at the stream head, transform() per chunk, finish() at
///    the end, cancel() when the client leaves. After finish() or cancel() nothing is scheduled, so the
///    owner may be destroyed on any thread.
class StreamControl {
  public:
    StreamControl() = default;
    StreamControl(const StreamControl&) = delete;
    StreamControl& operator=(const StreamControl&) = delete;
    ~StreamControl();

    // ---- handler side (any thread) ----

    /// Runs `fn` once when the request is cancelled (client gone, server cut it), posted to the loop
    /// thread. When that already happened, runs `fn` at once on the calling thread. Replaces an earlier one.
    void on_cancel(std::function<void()> fn);
    /// Marks the stream as an event stream; `heartbeat_ms`: comment interval (0: none; nullopt: the
    /// server's sse_heartbeat_ms). Call before Responder::start_stream.
    void set_event_stream(std::optional<std::uint32_t> heartbeat_ms);

    // ---- connection side (loop thread) ----

    /// At the stream head, before it is encoded: chooses compression (headers go into `head`) and starts
    /// heartbeats for event streams (a `text/event-stream` head counts as one). Does nothing for a head
    /// the encoder will refuse (`valid` false).
    void begin(slipstream::detail::PendingResponse& pending, Response& head, bool valid, ContentCoding& coding,
               net::EventLoop& loop, std::uint32_t default_heartbeat_ms);
    /// One body chunk as it goes on the wire (compressed and flushed, or as it is); may be empty.
    std::string transform(std::string&& chunk);
    /// At the end of the stream: the encoder's tail (empty when aborted or not compressing). Stops all.
    std::string finish(bool aborted);
    /// The request was cancelled: stops heartbeats and posts the cancel callback through `loop`.
    void cancel(slipstream::detail::LoopRef& loop);

    /// True between begin() and finish()/cancel().
    bool active() const { return active_; }

  private:
    void on_heartbeat();
    void stop();

    // Handler side, guarded by mutex_.
    std::mutex mutex_;
    std::function<void()> cancel_fn_;
    bool cancelled_ = false;
    bool event_stream_ = false;
    std::optional<std::uint32_t> heartbeat_ms_;

    // Loop side.
    slipstream::detail::PendingResponse* pending_ = nullptr;
    net::EventLoop* loop_ = nullptr;
    CodingMetrics* metrics_ = nullptr;
    std::unique_ptr<http::compression::Encoder> encoder_;
    net::Timer heartbeat_;
    std::int64_t heartbeat_nanos_ = 0;
    base::MonoNanos last_write_ = 0;
    bool active_ = false;
};

}  // namespace slipstream::server
