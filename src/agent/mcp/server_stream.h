// ServerStream: a session's GET stream (server-initiated messages) with a replay buffer for Last-Event-ID.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <mutex>
#include <optional>
#include <string>
#include <utility>

#include "slipstream/sse.h"

namespace slipstream::mcp::detail {

/// Thread-safe. Every message pushed gets the next event id (decimal, from 1) and is kept in a ring of
/// `capacity` events, whether or not a stream is open, so a client reconnecting with Last-Event-ID gets what it
/// missed. One live stream at a time: a new GET replaces the old one.
class ServerStream {
  public:
    explicit ServerStream(std::size_t capacity) : capacity_(capacity) {}

    void push(const std::string& message);
    /// Makes `stream` the live one: first the buffered events after `last_event_id` (all buffered ones when it
    /// is older than the buffer; none for an id we never issued or without one), then what comes next.
    void attach(EventStream stream, std::optional<std::string_view> last_event_id);
    /// Ends the live stream; later pushes are only buffered. close(true) also refuses later attaches.
    void close(bool forever);
    /// The id of the last event pushed ("0" before the first): attach() with it replays what is pushed after now.
    std::string last_id() const;
    bool closed() const;
    bool live() const;

  private:
    const std::size_t capacity_;
    mutable std::mutex mu_;
    std::deque<std::pair<std::uint64_t, std::string>> events_;
    std::uint64_t next_id_ = 1;
    std::optional<EventStream> live_;
    bool closed_ = false;
};

}  // namespace slipstream::mcp::detail
