// JsonMaskCache: an LRU list with an index by key, bounded by the bytes its entries hold.
#include "agent/infer/json_mask_cache.h"

#include "agent/infer/token_bytes.h"

namespace slipstream::agent::infer {

JsonMaskCache::JsonMaskCache(std::shared_ptr<const structured::CompiledSchema> schema,
                             std::shared_ptr<const TokenBytes> tokens, std::size_t max_bytes,
                             std::size_t max_pinned_bytes)
    : schema_(std::move(schema)),
      tokens_(std::move(tokens)),
      max_bytes_(max_bytes),
      max_pinned_bytes_(max_pinned_bytes) {}

std::size_t JsonMaskCache::cost(const std::string& key, const CachedMask& mask) {
    return sizeof(Entry) + key.size() + mask.bits.size() * sizeof(uint64_t) + mask.allowed.size() * sizeof(int32_t) +
           mask.finals.size() * sizeof(int32_t) + mask.suffix_verdicts.size() + 64;  // the index's node, roughly
}

std::shared_ptr<const CachedMask> JsonMaskCache::find(std::string_view key) {
    std::lock_guard lock(mu_);
    if (!pinned_.empty()) {
        if (const auto p = pinned_.find(key); p != pinned_.end()) {
            ++hits_;
            return p->second;
        }
    }
    const auto it = index_.find(key);
    if (it == index_.end()) {
        ++misses_;
        return nullptr;
    }
    ++hits_;
    lru_.splice(lru_.begin(), lru_, it->second);
    return it->second->mask;
}

void JsonMaskCache::insert(std::string key, std::shared_ptr<const CachedMask> mask) {
    const std::size_t bytes = cost(key, *mask);
    std::lock_guard lock(mu_);
    if (const auto it = index_.find(key); it != index_.end()) {
        bytes_ -= it->second->bytes;
        lru_.erase(it->second);
        index_.erase(it);
    }
    if (bytes > max_bytes_) return;
    while (!lru_.empty() && bytes_ + bytes > max_bytes_) {
        bytes_ -= lru_.back().bytes;
        index_.erase(lru_.back().key);
        lru_.pop_back();
    }
    lru_.push_front(Entry{std::move(key), std::move(mask), bytes});
    index_.emplace(lru_.front().key, lru_.begin());
    bytes_ += bytes;
}

bool JsonMaskCache::pin(std::string key, std::shared_ptr<const CachedMask> mask) {
    const std::size_t bytes = cost(key, *mask);
    std::lock_guard lock(mu_);
    if (pinned_.contains(key)) return true;  // kept already (another precompute got there first)
    if (pinned_bytes_ + bytes > max_pinned_bytes_) return false;
    if (const auto it = index_.find(key); it != index_.end()) {
        bytes_ -= it->second->bytes;
        lru_.erase(it->second);
        index_.erase(it);
    }
    pinned_bytes_ += bytes;
    pinned_.emplace(std::move(key), std::move(mask));
    return true;
}

std::size_t JsonMaskCache::pinned() const {
    std::lock_guard lock(mu_);
    return pinned_.size();
}

std::size_t JsonMaskCache::pinned_bytes() const {
    std::lock_guard lock(mu_);
    return pinned_bytes_;
}

std::size_t JsonMaskCache::size() const {
    std::lock_guard lock(mu_);
    return lru_.size();
}

std::size_t JsonMaskCache::bytes() const {
    std::lock_guard lock(mu_);
    return bytes_;
}

std::uint64_t JsonMaskCache::hits() const {
    std::lock_guard lock(mu_);
    return hits_;
}

std::uint64_t JsonMaskCache::misses() const {
    std::lock_guard lock(mu_);
    return misses_;
}

}  // namespace slipstream::agent::infer
