// StreamControl: what a streamed response carries besides its bytes: encoder, SSE heartbeats, cancel, flow control.
#pragma once

#include <atomic>
#include <cstddef>
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
///  - the handler's (any thread): on_cancel(), set_event_stream() (before start_stream), and flow control:
///    posted() per chunk written, writable(), queued(), on_writable();
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

    // ---- flow control (any thread) ----
    // queued() = bytes posted by the producer and not yet taken by the connection + the connection's unsent
    // output up to and including this stream (the backlog). The producer should pause while !writable().

    /// The producer handed `bytes` to the loop (Responder::write, before posting).
    void posted(std::size_t bytes) { posted_.fetch_add(bytes, std::memory_order_seq_cst); }
    /// A posted chunk of `bytes` reached the connection (loop thread, after it was queued there).
    void delivered(std::size_t bytes);
    std::size_t queued() const;
    /// True while queued() is under the high-water mark.
    bool writable() const { return queued() < high_water_.load(std::memory_order_relaxed); }
    /// Runs `fn` once, when queued() is at most half the high-water mark or the stream ended or was cancelled:
    /// at once on the calling thread when that is already so, else on the loop thread. Replaces an earlier one.
    void on_writable(std::function<void()> fn);

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
    /// The connection's unsent output up to and including this stream's bytes; wakes an on_writable() waiter
    /// once queued() dropped to the low-water mark.
    void set_backlog(std::size_t bytes);
    /// The high-water mark of queued() (ServerOptions::stream_high_water_bytes); set before begin().
    void set_high_water(std::size_t bytes) { high_water_.store(bytes, std::memory_order_relaxed); }

    /// True between begin() and finish()/cancel().
    bool active() const { return active_; }
    /// True between begin() and finish()/cancel() for an event stream (text/event-stream).
    bool event_stream_active() const { return active_ && sse_; }

  private:
    void on_heartbeat();
    void stop();
    // Ends flow control for good and wakes a waiting producer.
    void close_flow();
    // Runs the on_writable() callback when its condition holds.
    void maybe_wake();

    // Handler side, guarded by mutex_.
    std::mutex mutex_;
    std::function<void()> cancel_fn_;
    bool cancelled_ = false;
    bool event_stream_ = false;
    std::optional<std::uint32_t> heartbeat_ms_;
    std::function<void()> writable_fn_;
    bool flow_closed_ = false;

    // Flow control counters (see queued()).
    std::atomic<std::size_t> posted_{0};
    std::atomic<std::size_t> delivered_{0};
    std::atomic<std::size_t> backlog_{0};
    std::atomic<std::size_t> high_water_{kDefaultHighWater};
    std::atomic<bool> waiting_{false};  // writable_fn_ is set

    // Loop side.
    slipstream::detail::PendingResponse* pending_ = nullptr;
    net::EventLoop* loop_ = nullptr;
    CodingMetrics* metrics_ = nullptr;
    std::unique_ptr<http::compression::Encoder> encoder_;
    net::Timer heartbeat_;
    std::int64_t heartbeat_nanos_ = 0;
    base::MonoNanos last_write_ = 0;
    bool active_ = false;
    bool sse_ = false;

    static constexpr std::size_t kDefaultHighWater = 1024 * 1024;
};

}  // namespace slipstream::server
