// Responder: the handle an asynchronous handler answers through, from any thread, exactly once.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <string_view>
#include <utility>
#include <vector>

#include "slipstream/response.h"

namespace slipstream {

namespace detail {
struct PendingResponse;
}

/// Move-only. `send()` may be called from any thread, once; the response is written by the
/// connection's own I/O thread, in request order when requests were pipelined. A Responder
/// destroyed without sending answers 500 (so a lost handler never hangs the client). If the
/// client went away first, sending is a no-op.
///
/// For bodies of unknown length, `start_stream()` sends the head at once and `write()` /
/// `end()` send the body with chunked encoding (HTTP/1.1) or close-delimited (HTTP/1.0).
///
/// Flow control: write() never blocks; it queues the chunk. A producer faster than its client reads checks
/// writable() after each write and, when it is false, waits for on_writable() before writing more, so the
/// bytes queued for one stream stay near ServerOptions::stream_high_water_bytes instead of growing without
/// bound. A producer that ignores the signal still works; its writes only queue up:
///
///     while (more()) {
///         if (!r.write(next())) return;                 // the client left
///         if (!r.writable()) wait_until_notified(r);    // r.on_writable(notify); then wait
///     }
///     r.end();
///
/// Graceful drain: an event stream (text/event-stream) is ended cleanly when the drain starts (its on_cancel
/// callback runs, later writes return false), so clients reconnect to another replica; other streams keep
/// going until they end or the drain deadline cuts them (closed without the final chunk: seen as truncated).
class Responder {
  public:
    explicit Responder(std::shared_ptr<detail::PendingResponse> pending);
    Responder(Responder&&) noexcept;
    Responder& operator=(Responder&&) noexcept;
    Responder(const Responder&) = delete;
    Responder& operator=(const Responder&) = delete;
    ~Responder();

    /// Sends the complete response. Thread-safe. Returns false if already sent or the client left.
    bool send(Response response);
    /// Sends each complete response as send() would, each I/O thread's share in one posted task: one wake-up of
    /// a sleeping I/O thread per call instead of one per response (an executor's batch of answers). Any thread.
    /// Leaves `replies` empty; a reply already sent, or whose client left, is dropped.
    static void send_all(std::vector<std::pair<Responder, Response>>& replies);

    /// Starts a streamed response: status, headers and content type now, body chunks later.
    bool start_stream(Response head);
    /// Sends one body chunk of a started stream (queued; never blocks). Returns false when the client left,
    /// the stream ended, or the server cut it (handler timeout, drain).
    bool write(std::string_view chunk);
    /// False while the stream's queued bytes (written, not yet taken by the client's socket) are at or over
    /// the high-water mark (ServerOptions::stream_high_water_bytes): stop writing and wait for on_writable().
    /// Any thread. True when there is no stream.
    bool writable() const;
    /// The stream's queued bytes: written by the producer and not yet handed to the socket. Any thread.
    std::size_t queued() const;
    /// Calls `fn` once, when the queued bytes dropped to half the high-water mark, or the stream ended, or
    /// the client left (then write() tells which): on the connection's I/O thread, so it must be quick and
    /// must not block (notify a condition variable, set an event). If that already holds, `fn` runs at once
    /// on the calling thread. Replaces an earlier callback. Thread-safe.
    void on_writable(std::function<void()> fn);
    /// Ends a started stream.
    bool end();

    /// True when the client disconnected (the handler may stop producing).
    bool cancelled() const;
    /// Calls `fn` once when the client disconnects or the server cuts the request (shutdown), on the
    /// connection's I/O thread: it must be quick and must not block (set a flag, notify a condition
    /// variable, cancel a task). If that already happened, `fn` runs at once on the calling thread.
    /// Replaces an earlier callback. Thread-safe. A disconnect is noticed at once while a stream is open.
    /// It also runs when the handler timeout fires before the stream's head went out (the client got a 504).
    void on_cancel(std::function<void()> fn);

    /// The state shared with the connection, for the engine's own wrappers (EventStream).
    detail::PendingResponse* pending() const { return pending_.get(); }

  private:
    std::shared_ptr<detail::PendingResponse> pending_;
};

}  // namespace slipstream
