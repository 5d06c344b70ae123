// DecideRateLimits: per-principal limits on decisions and on rewards (policy/ratelimit's GCRA limiter), on top of
// the engine's --rate-limit (which counts every request of a principal on every route).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "base/result.h"
#include "policy/ratelimit/rate_limiter.h"

namespace slipstream::agent::decide {

struct DecideRateOptions {
    std::string decide;       // decisions per period per principal ("1000/s"); empty: no limit
    std::string reward;       // rewards per period per principal; empty: no limit
    std::uint64_t burst = 0;  // decisions (rewards) a full bucket allows at once; 0: the rate's count
    std::size_t max_keys = 100'000;
};

/// Thread-safe. Each item of a batch counts as one decision (reward).
class DecideRateLimits {
  public:
    /// Null when both rates are empty; kInvalidArgument naming the option for a bad rate or bound.
    static base::Result<std::shared_ptr<DecideRateLimits>> make(const DecideRateOptions& options);

    /// Whether `key` (the principal, or the client's address for anonymous requests) may make one more decision
    /// (reward) now; allowed when that limit is off.
    policy::ratelimit::Decision decide(std::string_view key);
    policy::ratelimit::Decision reward(std::string_view key);

  private:
    std::unique_ptr<policy::ratelimit::RateLimiter> decide_;
    std::unique_ptr<policy::ratelimit::RateLimiter> reward_;
};

}  // namespace slipstream::agent::decide
