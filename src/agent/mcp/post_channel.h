// PostChannel: the answer of one Streamable HTTP POST: JSON when the answer comes first, else an SSE stream.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "agent/mcp/channel.h"
#include "agent/mcp/stream_recorder.h"
#include "slipstream/responder.h"
#include "slipstream/sse.h"

namespace slipstream::mcp::detail {

struct PostChannelOptions {
    bool sse = true;  // false: notifications go to `fallback` (the session's GET stream), the answer is JSON
    std::vector<std::pair<std::string, std::string>> headers;  // on the answer (Mcp-Session-Id at initialize)
    std::function<void(std::string)> fallback;
    /// Resumable: the stream's events get ids "<stream_id>-<n>" and are kept (up to `keep_events`), so a client
    /// that lost the connection reads the rest with GET and Last-Event-ID (resume()). Empty: not resumable.
    /// `stream_id` holds no '-'.
    std::string stream_id;
    std::size_t keep_events = 0;
    /// Also writes each event to the session store (a GET on another process resumes from there); may be null.
    std::shared_ptr<StreamRecorder> recorder;
    bool priming_event = false;  // opens the stream with an event of an id and empty data (2025-11-25)
    std::uint32_t retry_ms = 0;  // a resumable stream's `retry:` field
    /// 2026-07-28: an error answer sent as JSON with code -32021 (MissingRequiredClientCapability) gets status 400.
    bool modern = false;
};

/// Decides lazily: an answer before any notification is sent as application/json; the first notification opens
/// text/event-stream (when `sse` allows it), which carries later notifications and ends with the answer. With
/// SSE off, notifications go to `fallback`. Thread-safe.
class PostChannel final : public Channel {
  public:
    PostChannel(Responder responder, PostChannelOptions options)
        : responder_(std::move(responder)), options_(std::move(options)) {}

    void notify(std::string message) override;
    void answer(std::string message) override;
    void abandon() override;
    bool release() override;

    /// Continues the stream on `stream` (a GET with Last-Event-ID "<stream_id>-<after>"): the kept events after
    /// `after`, then the live ones; the stream ends after the answer. False (stream untouched) when this stream
    /// is not resumable or never opened.
    bool resume(EventStream& stream, std::uint64_t after);
    /// True once the answer was sent (or the request abandoned).
    bool done() const;

  private:
    void open_stream();                                  // under mu_
    void emit(std::string message, bool final = false);  // under mu_: to the live stream, kept when resumable
    bool resumable() const { return !options_.stream_id.empty(); }

    mutable std::mutex mu_;
    std::optional<Responder> responder_;
    std::optional<EventStream> stream_;
    bool opened_ = false;
    bool done_ = false;
    PostChannelOptions options_;
    std::uint64_t next_event_ = 1;
    std::deque<std::pair<std::uint64_t, std::string>> kept_;
};

}  // namespace slipstream::mcp::detail
