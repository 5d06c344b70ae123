// CompiledSchemaCache: a list in recency order and a hash index over its texts.
#include "agent/structured/schema_cache.h"

namespace slipstream::agent::structured {

base::Result<std::shared_ptr<const CompiledSchema>> CompiledSchemaCache::get(std::string_view text) {
    {
        std::lock_guard<std::mutex> lock(mu_);
        if (const auto it = index_.find(text); it != index_.end()) {
            lru_.splice(lru_.begin(), lru_, it->second);
            ++hits_;
            return it->second->second;
        }
    }
    auto compiled = CompiledSchema::create(text);
    if (!compiled.is_ok() || capacity_ == 0) return compiled;
    std::lock_guard<std::mutex> lock(mu_);
    if (const auto it = index_.find(text); it != index_.end()) return it->second->second;  // another thread's
    lru_.emplace_front(std::string(text), *compiled);
    index_.emplace(lru_.front().first, lru_.begin());
    while (lru_.size() > capacity_) {
        index_.erase(lru_.back().first);
        lru_.pop_back();
    }
    return compiled;
}

std::size_t CompiledSchemaCache::size() const {
    std::lock_guard<std::mutex> lock(mu_);
    return lru_.size();
}

std::size_t CompiledSchemaCache::hits() const {
    std::lock_guard<std::mutex> lock(mu_);
    return hits_;
}

}  // namespace slipstream::agent::structured
