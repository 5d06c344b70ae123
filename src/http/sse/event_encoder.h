// EventEncoder: Server-Sent Events wire format (WHATWG HTML §9.2): event, id, retry, data lines, comments.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "base/status.h"

namespace slipstream::http::sse {

/// One event. Empty `event` means the default type ("message"); empty `id` sends no id field.
struct Event {
    std::string_view data{};
    std::string_view event{};
    std::string_view id{};
    std::optional<std::uint32_t> retry_ms{};  // reconnection time sent with the event
};

/// The fields of one event in FastAPI's format_sse_event() terms: each optional, written in its order
/// (comment lines, `event`, `data` lines, `id`, `retry`) and not validated (the caller did). The Python front
/// end reproduces FastAPI's bytes with it.
struct FieldList {
    std::optional<std::string_view> comment{};
    std::optional<std::string_view> event{};
    std::optional<std::string_view> data{};
    std::optional<std::string_view> id{};
    std::optional<std::int64_t> retry{};
};

/// Appends the wire form of events and comments to a string. Pure functions of their input.
///
/// `data` may hold any text: it is split at CRLF, CR and LF into one `data:` line each, so the client
/// rebuilds it with LF line ends (the format cannot carry CR). An empty `data` still sends one empty
/// `data:` line, so the event is dispatched. `event` and `id` must be single lines (no CR, LF) and `id`
/// must not contain NUL (clients ignore such ids): append_event refuses them with kInvalidArgument and
/// appends nothing.
class EventEncoder {
  public:
    [[nodiscard]] static base::Status append_event(const Event& event, std::string& out);
    /// A comment (`: text` lines, split like data); clients ignore it. Used for heartbeats.
    static void append_comment(std::string_view text, std::string& out);
    /// A bare `retry:` field (with its blank line): sets the client's reconnection time.
    static void append_retry(std::uint32_t retry_ms, std::string& out);
    /// The bytes of append_event for a size estimate (reserve).
    static std::size_t encoded_size_bound(const Event& event);
    /// FastAPI's layout: `: ` comment lines, `event: `, `data: ` lines (comment and data split at CRLF, CR,
    /// LF), `id: `, `retry: `, then a blank line; absent fields are left out (all absent: just the blank line).
    static void append_fields(const FieldList& fields, std::string& out);
};

/// The heartbeat the server sends on idle streams: one comment line and a blank line.
inline constexpr std::string_view kHeartbeat = ": heartbeat\n\n";

}  // namespace slipstream::http::sse
