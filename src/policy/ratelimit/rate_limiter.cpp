// RateLimiter: config checks, shard selection, and check() = lookup + GCRA step + room for new keys.
#include "policy/ratelimit/rate_limiter.h"

#include <algorithm>
#include <functional>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>

#include "policy/ratelimit/bucket_table.h"

namespace slipstream::policy::ratelimit {
namespace {

constexpr std::size_t kMaxShards = 1024;
constexpr std::size_t kMaxKeysLimit = std::size_t{1} << 31;
// Longest refill of a whole bucket; with now_ns below 2^62 every TAT stays below 2^63.
constexpr std::int64_t kMaxFillNs = 100LL * 365 * 86'400 * 1'000'000'000;
constexpr std::int64_t kMaxNowNs = std::int64_t{1} << 62;

std::uint64_t checked_burst(const RateLimiterConfig& config) {
    const std::uint64_t burst = config.burst == 0 ? config.rate.count() : config.burst;
    if (burst > kMaxRateCount) {
        throw std::invalid_argument("rate limiter burst " + std::to_string(burst) + " exceeds " +
                                    std::to_string(kMaxRateCount));
    }
    // burst x interval_num / interval_den ns, compared without division.
    const Rate& r = config.rate;
    if (detail::U128(burst) * r.interval_num() > detail::U128(kMaxFillNs) * r.interval_den()) {
        throw std::invalid_argument("rate limiter burst " + std::to_string(burst) + " at " + r.to_string() +
                                    " takes more than 100 years to refill");
    }
    return burst;
}

std::size_t checked_max_keys(const RateLimiterConfig& config) {
    if (config.max_keys == 0 || config.max_keys >= kMaxKeysLimit) {
        throw std::invalid_argument("rate limiter max_keys " + std::to_string(config.max_keys) +
                                    " is outside [1, 2^31)");
    }
    return config.max_keys;
}

std::size_t checked_shards(const RateLimiterConfig& config) {
    if (config.shards == 0 || config.shards > kMaxShards) {
        throw std::invalid_argument("rate limiter shards " + std::to_string(config.shards) + " is outside [1, " +
                                    std::to_string(kMaxShards) + "]");
    }
    return std::min(config.shards, config.max_keys);
}

}  // namespace

// One lock and the keys it guards, on cache lines of its own so shards do not false-share.
struct alignas(64) RateLimiter::Shard {
    std::mutex mu;
    std::optional<detail::BucketTable> table;  // set by the constructor
    std::uint64_t allowed = 0;
    std::uint64_t refused = 0;
    std::uint64_t evicted_full = 0;
    std::uint64_t evicted_lru = 0;
};

RateLimiter::RateLimiter(const RateLimiterConfig& config)
    : rate_(config.rate),
      limit_(detail::GcraLimit::make(config.rate, checked_burst(config))),
      max_keys_(checked_max_keys(config)),
      shard_count_(checked_shards(config)),
      shards_(new Shard[shard_count_]) {
    // Share max_keys out exactly: the first max_keys % n shards hold one key more.
    for (std::size_t i = 0; i < shard_count_; ++i) {
        shards_[i].table.emplace(max_keys_ / shard_count_ + (i < max_keys_ % shard_count_ ? 1 : 0));
    }
}

RateLimiter::~RateLimiter() = default;

RateLimiter::Shard& RateLimiter::shard_for(std::uint64_t hash) const {
    // The high half picks the shard; the table uses the low half, so the two stay independent.
    return shards_[static_cast<std::size_t>(((hash >> 32) * shard_count_) >> 32)];
}

Decision RateLimiter::check(std::string_view key, base::MonoNanos now_ns, const Rate* override) {
    const std::uint64_t hash = std::hash<std::string_view>{}(key);
    const std::int64_t now = std::clamp<std::int64_t>(now_ns, 0, kMaxNowNs);
    const detail::GcraLimit limit =
        override == nullptr ? limit_ : detail::GcraLimit::make(*override, override->count());
    Shard& shard = shard_for(hash);

    std::lock_guard<std::mutex> lock(shard.mu);
    detail::BucketTable& table = *shard.table;
    const std::uint32_t slot = table.find(key, hash);
    if (slot != detail::BucketTable::kNone) {
        detail::GcraState state = table.state(slot);
        const Decision d = detail::gcra_check(limit, state, now);
        table.set_state(slot, state);
        table.touch(slot);
        ++(d.allowed ? shard.allowed : shard.refused);
        return d;
    }

    // A new key starts full, so its first request is always allowed.
    detail::GcraState state{now, 0};
    const Decision d = detail::gcra_check(limit, state, now);
    if (table.size() == table.capacity()) {
        if (now >= table.earliest_expiry()) shard.evicted_full += table.erase_expired(now);
        if (table.size() == table.capacity()) {
            table.erase(table.lru());
            ++shard.evicted_lru;
        }
    }
    table.insert(key, hash, state);
    ++shard.allowed;
    return d;
}

std::size_t RateLimiter::sweep(base::MonoNanos now_ns) {
    const std::int64_t now = std::clamp<std::int64_t>(now_ns, 0, kMaxNowNs);
    std::size_t removed = 0;
    for (std::size_t i = 0; i < shard_count_; ++i) {
        Shard& shard = shards_[i];
        std::lock_guard<std::mutex> lock(shard.mu);
        if (now < shard.table->earliest_expiry()) continue;
        const std::size_t n = shard.table->erase_expired(now);
        shard.evicted_full += n;
        removed += n;
    }
    return removed;
}

RateLimiterStats RateLimiter::stats() const {
    RateLimiterStats out;
    for (std::size_t i = 0; i < shard_count_; ++i) {
        Shard& shard = shards_[i];
        std::lock_guard<std::mutex> lock(shard.mu);
        out.keys += shard.table->size();
        out.allowed += shard.allowed;
        out.refused += shard.refused;
        out.evicted_full += shard.evicted_full;
        out.evicted_lru += shard.evicted_lru;
    }
    return out;
}

}  // namespace slipstream::policy::ratelimit
