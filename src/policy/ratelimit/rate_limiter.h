// RateLimiter: per-key GCRA rate limits in a sharded, bounded table, safe from every I/O thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string_view>

#include "base/clock.h"
#include "policy/ratelimit/decision.h"
#include "policy/ratelimit/gcra.h"
#include "policy/ratelimit/rate.h"

namespace slipstream::policy::ratelimit {

/// How a RateLimiter limits and how much it may remember.
struct RateLimiterConfig {
    /// The rate of every key that check() is not given an override for.
    Rate rate;
    /// Requests a full bucket allows at once; 0 means rate.count(). At most kMaxRateCount, and
    /// refilling it (burst x period / count) may take at most 100 years.
    std::uint64_t burst = 0;
    /// Keys remembered at most, over all shards; >= 1 and < 2^31.
    std::size_t max_keys = 100'000;
    /// Independent locks; more shards mean less contention between threads. 1..1024; reduced to
    /// max_keys when larger, so that every shard holds at least one key.
    std::size_t shards = 64;
};

/// Counters since construction, summed over the shards.
struct RateLimiterStats {
    std::size_t keys = 0;            ///< keys remembered now
    std::uint64_t allowed = 0;       ///< check() calls that allowed
    std::uint64_t refused = 0;       ///< check() calls that refused
    std::uint64_t evicted_full = 0;  ///< keys dropped because their bucket was full again (no loss)
    std::uint64_t evicted_lru = 0;   ///< keys dropped, least recently used, to make room (state lost)
};

/// Per-key rate limiting with the generic cell rate algorithm (one timestamp per key, exact).
///
/// Keys are opaque bytes: an authenticated principal's name, else the client's address. Each key's
/// bucket holds `burst` requests and refills at the rate: one request per period / count. A key
/// seen for the first time starts with a full bucket.
///
/// Thread-safety: check(), sweep() and stats() may be called from any number of threads at once.
/// Keys are spread over shards, each a mutex and a bounded hash table; a call locks one shard
/// (sweep() and stats() lock each in turn). Time is the caller's: pass a monotonic clock reading
/// (base::MonoNanos, 0 <= now_ns < 2^62), from a fake clock in tests.
///
/// Memory: at most max_keys keys, each about 100 bytes plus its length beyond 15 bytes. When a
/// shard is full, a new key first makes the shard drop every key whose bucket is full again, and
/// when there is none, the least recently used key (whose next request then finds a full bucket).
class RateLimiter {
  public:
    /// Control plane: throws std::invalid_argument on a config out of the bounds documented above.
    explicit RateLimiter(const RateLimiterConfig& config);
    ~RateLimiter();
    RateLimiter(const RateLimiter&) = delete;
    RateLimiter& operator=(const RateLimiter&) = delete;

    /// Counts one request of `key` at `now_ns` and says whether to serve it. `override`, when not
    /// null, is this key's own rate instead of the configured one, with a burst of its count (as
    /// for config.burst == 0); it is read during the call only. A key should keep one rate: after
    /// a change its bucket carries over, within 1 ns. Never throws; allocates only to remember a
    /// new key (a copy of its bytes, beyond 15 of them).
    // Budget: ~200 instructions for a known key (~85 hashing, ~55 the lock): ~46 ns on a loaded 2-vCPU VM,
    // ~60 ns with a fractional interval or an override (rate_limiter_bench, README.md "Performance").
    [[nodiscard]] Decision check(std::string_view key, base::MonoNanos now_ns, const Rate* override = nullptr);

    /// Drops every key whose bucket is full at now_ns; returns how many. For a periodic timer, so
    /// that memory follows the active keys; check() does the same on its own when a shard is full.
    std::size_t sweep(base::MonoNanos now_ns);

    RateLimiterStats stats() const;

    const Rate& rate() const { return rate_; }
    std::uint64_t burst() const { return limit_.burst; }
    std::size_t max_keys() const { return max_keys_; }
    std::size_t shard_count() const { return shard_count_; }

  private:
    struct Shard;

    Shard& shard_for(std::uint64_t hash) const;

    Rate rate_;
    detail::GcraLimit limit_;
    std::size_t max_keys_;
    std::size_t shard_count_;
    std::unique_ptr<Shard[]> shards_;
};

}  // namespace slipstream::policy::ratelimit
