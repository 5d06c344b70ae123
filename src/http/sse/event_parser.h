// EventParser: an incremental reader of a text/event-stream body (WHATWG HTML §9.2.6), fed chunks split anywhere.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "base/status.h"

namespace slipstream::http::sse {

/// One dispatched event. The views stay valid until the next feed()/finish()/reset() call.
struct ParsedEvent {
    std::string_view type;  // the `event` field; "message" when none was sent
    std::string_view data;  // the `data` lines joined with LF (no trailing LF)
    std::string_view id;    // the last event id so far (it persists across events, as in a browser)
};

/// What the parser hands over. `on_event` and `on_comment` may return an error to stop the parse: feed() then
/// returns that error at once, leaving the rest of the chunk unread; the parser is then failed (reset() to reuse).
class EventSink {
  public:
    virtual base::Status on_event(const ParsedEvent& event) = 0;
    /// A line starting with ':' (without the colon); browsers ignore them. Default: ignored.
    virtual base::Status on_comment(std::string_view /*text*/) { return base::Status::ok(); }
    /// A valid `retry:` field (ASCII digits only): the reconnection time in milliseconds. Default: ignored.
    virtual void on_retry(std::uint64_t /*ms*/) {}

  protected:
    ~EventSink() = default;
};

struct EventParserLimits {
    /// One line (field name, colon and value), without its line end. Longer: kOutOfRange.
    std::size_t max_line_bytes = 64 * 1024;
    /// The data of one event (its `data` lines joined). Larger: kOutOfRange.
    std::size_t max_event_bytes = 1024 * 1024;
};

/// The event-stream interpretation algorithm:
///  - lines end with CRLF, LF or CR, each of which may be split between two chunks (a CR at the end of one chunk
///    and an LF at the start of the next are one line end);
///  - one U+FEFF byte order mark (EF BB BF) at the very start of the stream is dropped, even when split;
///  - an empty line dispatches the event: nothing when no `data` line came, else `type` (default "message"),
///    `data` (lines joined with LF) and the last event id;
///  - `:` starts a comment; `field: value` (one space after the colon dropped), a line without a colon is a field
///    with an empty value; fields `event`, `data`, `id` (ignored when the value holds NUL), `retry` (only when all
///    ASCII digits); other fields are ignored;
///  - at the end of the stream (finish()), an event not yet dispatched is dropped, as a browser drops it.
/// Bytes are passed through as they come (the algorithm decodes UTF-8 with replacement; callers that need text
/// validate it themselves, e.g. as JSON). Cost per chunk is proportional to the chunk: bytes are never re-read.
/// Not thread-safe.
class EventParser {
  public:
    explicit EventParser(EventParserLimits limits = {}) : limits_(limits) {}

    /// Parses `chunk`, calling `sink` for each event, comment and retry it completes. Errors: kOutOfRange when
    /// a limit is passed, or the sink's own error; after an error every call returns it again.
    base::Status feed(std::string_view chunk, EventSink& sink);
    /// The end of the stream: a last line without a line end is processed (it cannot dispatch: dispatching needs
    /// an empty line). Returns whether an event was left undispatched (a truncated stream), or the error.
    base::Status finish(EventSink& sink, bool* dropped_event = nullptr);
    /// Forgets everything (the last event id too): a new stream.
    void reset();

    /// The last event id seen (kept across events, what a client resends as Last-Event-ID).
    std::string_view last_event_id() const { return last_id_; }
    /// Bytes fed so far.
    std::uint64_t bytes() const { return bytes_; }
    /// Something of an event (a field line) has been read and not yet dispatched, or a line is half read.
    bool pending() const { return has_fields_ || !line_.empty(); }

  private:
    base::Status line(std::string_view text, EventSink& sink);
    base::Status dispatch(EventSink& sink);
    base::Status fail(base::Status status);

    EventParserLimits limits_;
    std::string line_;           // the line read so far when it spans chunks
    bool after_cr_ = false;      // the previous chunk ended with a CR: an LF now is part of that line end
    std::uint8_t bom_seen_ = 0;  // bytes of the leading BOM matched so far; 255: settled
    std::string data_;
    std::string type_;
    std::string last_id_;
    bool has_fields_ = false;
    std::uint64_t bytes_ = 0;
    base::Status error_;
};

}  // namespace slipstream::http::sse
