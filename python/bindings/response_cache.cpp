// ResponseCache: a mutex-guarded map with expiry; lookups copy the response out.
#include "response_cache.h"

namespace slipstream::python {

std::optional<Response> ResponseCache::lookup(std::string_view target, Clock::time_point now) const {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = entries_.find(std::string(target));
    if (it == entries_.end() || it->second.expires <= now) return std::nullopt;
    return it->second.response;
}

void ResponseCache::store(std::string_view target, const Response& response, Clock::time_point now) {
    if (response.status != 200) return;
    std::lock_guard<std::mutex> lock(mutex_);
    if (entries_.size() >= max_entries_ && entries_.find(std::string(target)) == entries_.end()) {
        for (auto it = entries_.begin(); it != entries_.end();) {
            if (it->second.expires <= now)
                it = entries_.erase(it);
            else
                ++it;
        }
        if (entries_.size() >= max_entries_) return;
    }
    entries_[std::string(target)] = Entry{response, now + ttl_};
}

std::size_t ResponseCache::size() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return entries_.size();
}

}  // namespace slipstream::python
