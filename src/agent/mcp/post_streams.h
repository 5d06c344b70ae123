// PostStreams: a session's resumable POST streams by id, for GET with Last-Event-ID "<stream>-<n>".
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>

#include "agent/mcp/post_channel.h"

namespace slipstream::mcp::detail {

/// Thread-safe. Keeps at most `max` streams: beyond it the oldest finished one goes, else the oldest.
class PostStreams {
  public:
    explicit PostStreams(std::size_t max) : max_(max ? max : 1) {}

    std::uint64_t next_id();
    void add(std::string id, std::shared_ptr<PostChannel> channel);
    std::shared_ptr<PostChannel> find(std::string_view id) const;

  private:
    const std::size_t max_;
    mutable std::mutex mu_;
    std::uint64_t next_ = 1;
    std::deque<std::pair<std::string, std::shared_ptr<PostChannel>>> streams_;
};

}  // namespace slipstream::mcp::detail
