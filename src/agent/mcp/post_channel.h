// PostChannel: the answer of one Streamable HTTP POST: JSON when the answer comes first, else an SSE stream.
#pragma once

#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "agent/mcp/channel.h"
#include "slipstream/responder.h"
#include "slipstream/sse.h"

namespace slipstream::mcp::detail {

/// Decides lazily: an answer before any notification is sent as application/json; the first notification opens
/// text/event-stream (when `sse` allows it), which carries later notifications and ends with the answer. With
/// SSE off, notifications go to `fallback` (the session's GET stream). Thread-safe.
class PostChannel final : public Channel {
  public:
    PostChannel(Responder responder, bool sse, std::vector<std::pair<std::string, std::string>> headers,
                std::function<void(std::string)> fallback)
        : responder_(std::move(responder)), sse_(sse), headers_(std::move(headers)), fallback_(std::move(fallback)) {}

    void notify(std::string message) override;
    void answer(std::string message) override;
    void abandon() override;

  private:
    void open_stream();  // under mu_

    std::mutex mu_;
    std::optional<Responder> responder_;
    std::optional<EventStream> stream_;
    bool done_ = false;
    const bool sse_;
    std::vector<std::pair<std::string, std::string>> headers_;
    std::function<void(std::string)> fallback_;
};

}  // namespace slipstream::mcp::detail
