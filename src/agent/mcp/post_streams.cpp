// PostStreams: a bounded table of resumable POST streams.
#include "agent/mcp/post_streams.h"

#include <algorithm>

namespace slipstream::mcp::detail {

std::uint64_t PostStreams::next_id() {
    std::lock_guard lock(mu_);
    return next_++;
}

void PostStreams::add(std::string id, std::shared_ptr<PostChannel> channel) {
    std::lock_guard lock(mu_);
    if (streams_.size() >= max_) {
        auto finished = std::find_if(streams_.begin(), streams_.end(), [](const auto& s) { return s.second->done(); });
        streams_.erase(finished != streams_.end() ? finished : streams_.begin());
    }
    streams_.emplace_back(std::move(id), std::move(channel));
}

std::shared_ptr<PostChannel> PostStreams::find(std::string_view id) const {
    std::lock_guard lock(mu_);
    for (const auto& [sid, channel] : streams_)
        if (sid == id) return channel;
    return nullptr;
}

}  // namespace slipstream::mcp::detail
