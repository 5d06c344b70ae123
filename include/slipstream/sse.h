// EventStream: a Server-Sent Events response (text/event-stream) with heartbeats and disconnect notice.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "slipstream/responder.h"

namespace slipstream {

/// One event. `data` may hold any text: line breaks (CRLF, CR, LF) become several `data:` lines and the
/// client sees them as LF. `event` and `id` must be single lines; empty ones are not sent.
struct SseEvent {
    std::string_view data{};
    std::string_view event{};  // the event type; empty: "message"
    std::string_view id{};     // the last-event id the client resends on reconnect; empty: none
    std::optional<std::uint32_t> retry_ms{};
};

/// One event as FastAPI's `format_sse_event()` lays it out (the Python front end uses this): each field
/// optional, written in the order comment lines, `event:`, `data:` lines, `id:`, `retry:`, then a blank line.
/// Nothing is validated (the caller checked `event` and `id` are single lines).
struct SseFields {
    std::optional<std::string_view> comment{};
    std::optional<std::string_view> event{};
    std::optional<std::string_view> data{};
    std::optional<std::string_view> id{};
    std::optional<std::int64_t> retry{};
};

/// The wire bytes of `fields` (FastAPI-identical). Pure; any thread.
std::string format_sse_fields(const SseFields& fields);

struct EventStreamOptions {
    int status = 200;
    /// Extra response headers (CORS, cookies). Content-Type, Cache-Control and X-Accel-Buffering are set.
    std::vector<std::pair<std::string, std::string>> headers;
    /// A comment is sent when nothing was written for this long, on the connection's I/O thread, so proxies
    /// keep the stream open and a dead client is found. nullopt: ServerOptions::sse_heartbeat_ms; 0: none.
    std::optional<std::uint32_t> heartbeat_ms;
    /// Sent first, as a `retry:` field: the client's reconnection delay.
    std::optional<std::uint32_t> retry_ms;
};

/// An open event stream over an asynchronous handler's Responder. The constructor sends the head at once:
/// the status, `Content-Type: text/event-stream`, `Cache-Control: no-cache`, `X-Accel-Buffering: no`.
/// Events are not compressed unless ServerOptions::compress_sse is on (then each event is flushed).
///
/// Move-only; use it from one thread at a time (any thread). Every method returns false once the client
/// left or the stream ended; send() also for an `event` or `id` with CR or LF. A client disconnect is
/// noticed at once (not at the next write): cancelled() turns true and the on_cancel() callback runs.
/// Destroying an open stream ends it cleanly.
class EventStream {
  public:
    explicit EventStream(Responder responder, EventStreamOptions options = {});
    EventStream(EventStream&&) noexcept;
    EventStream& operator=(EventStream&&) noexcept;
    EventStream(const EventStream&) = delete;
    EventStream& operator=(const EventStream&) = delete;
    ~EventStream();

    bool send(const SseEvent& event);
    /// send({data, event, id}).
    bool send(std::string_view data, std::string_view event = {}, std::string_view id = {});
    /// A comment line (ignored by clients).
    bool comment(std::string_view text);
    /// Ends the stream (the response completes; the connection may serve further requests).
    bool close();

    /// Flow control (see Responder::writable): false while the events sent but not yet taken by the client
    /// are at or over ServerOptions::stream_high_water_bytes. A producer that can wait should.
    bool writable() const;
    /// Responder::on_writable: `fn` runs once the queue drained to half the mark (or the stream ended or the
    /// client left), on the connection's I/O thread; at once when that already holds.
    void on_writable(std::function<void()> fn);

    /// True when the client left, or the server cut the stream: a graceful drain ends event streams at its
    /// start (cleanly, so clients reconnect elsewhere), and the on_cancel callback runs then too.
    bool cancelled() const;
    /// Calls `fn` once when the client leaves, on the connection's I/O thread: it must be quick and must
    /// not block (set a flag, notify a condition variable, cancel a task); it must not use this EventStream
    /// except through a copy of cancelled()'s answer. If the client already left, `fn` runs at once.
    void on_cancel(std::function<void()> fn);

  private:
    bool write(std::string&& bytes);

    Responder responder_;
    bool open_ = false;
};

}  // namespace slipstream
