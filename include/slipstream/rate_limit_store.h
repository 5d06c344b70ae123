// RateLimitStore: where the engine's rate-limit buckets live when they are shared by several processes.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace slipstream {

/// Requests of one key to count against its bucket, in one batch. The bucket is GCRA's (the generic cell rate
/// algorithm, src/policy/ratelimit/README.md): its emission interval is interval_num / interval_den ns and a full
/// bucket allows `burst` requests at once.
struct RateLimitCheck {
    std::string key;  // printable text, at most 300 bytes; one entry per key in a batch
    std::uint64_t interval_num = 1;
    std::uint64_t interval_den = 1;
    std::uint64_t burst = 1;
    std::uint32_t count = 1;  // requests to count, in arrival order
};

/// What the store decided for one RateLimitCheck.
struct RateLimitOutcome {
    std::uint32_t allowed = 0;  // the first `allowed` of the `count` requests are allowed, the rest refused
    std::int64_t tat_ahead_ns =
        0;  // the bucket's theoretical arrival time after them minus the store's now, rounded up
};

/// A shared bucket table (the server's `rate_limit_store`). check() may be called from any thread, several batches
/// at once; each batch is decided atomically per key against the store's own clock, so processes on several hosts
/// share one limit exactly. `done` runs once, on any thread: ok with one outcome per check in order, or !ok when
/// the store could not be asked (unreachable, timed out): the server then applies `rate_limit_store_failure`.
class RateLimitStore {
  public:
    using Done = std::function<void(bool ok, std::vector<RateLimitOutcome> outcomes)>;
    virtual ~RateLimitStore() = default;
    virtual void check(std::vector<RateLimitCheck> checks, Done done) = 0;
};

}  // namespace slipstream
