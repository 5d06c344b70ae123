// DecideRateLimits: per-principal limits on decisions and on rewards (policy/ratelimit's GCRA limiter), on top of
// the engine's --rate-limit (which counts every request of a principal on every route).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "base/result.h"
#include "policy/ratelimit/rate_limiter.h"
#include "slipstream/rate_limit_store.h"

namespace slipstream::agent::decide {

struct DecideRateOptions {
    std::string decide;       // decisions per period per principal ("1000/s"); empty: no limit
    std::string reward;       // rewards per period per principal; empty: no limit
    std::uint64_t burst = 0;  // decisions (rewards) a full bucket allows at once; 0: the rate's count
    std::size_t max_keys = 100'000;
    /// Buckets shared by every process (the server's `--rate-limit-store store`); null: this process's own.
    std::shared_ptr<RateLimitStore> store;
};

/// Thread-safe. Each item of a batch counts as one decision (reward).
class DecideRateLimits : public std::enable_shared_from_this<DecideRateLimits> {
  public:
    /// How many of the requests counted are allowed (the first ones), and the 429's numbers when not all are.
    using Taken = std::function<void(std::uint32_t allowed, policy::ratelimit::Decision refusal)>;

    /// Null when both rates are empty; kInvalidArgument naming the option for a bad rate or bound.
    static base::Result<std::shared_ptr<DecideRateLimits>> make(const DecideRateOptions& options);

    /// Whether `key` (the principal, or the client's address for anonymous requests) may make one more decision
    /// (reward) now; allowed when that limit is off.
    policy::ratelimit::Decision decide(std::string_view key);
    policy::ratelimit::Decision reward(std::string_view key);

    /// Counts `count` decisions (rewards) of `key`. This process's limiter: `done` runs at once, on this thread. With a
    /// store: one statement for all `count`, `done` on the store's thread (or this one), and this process's limiter
    /// when the store cannot answer.
    void take_decisions(const std::string& key, std::uint32_t count, Taken done);
    void take_rewards(const std::string& key, std::uint32_t count, Taken done);

  private:
    void take(policy::ratelimit::RateLimiter* local, const std::optional<policy::ratelimit::Rate>& rate,
              std::string_view prefix, const std::string& key, std::uint32_t count, Taken done);

    std::optional<policy::ratelimit::Rate> decide_rate_;
    std::optional<policy::ratelimit::Rate> reward_rate_;
    std::uint64_t burst_ = 0;
    std::shared_ptr<RateLimitStore> store_;
    std::unique_ptr<policy::ratelimit::RateLimiter> decide_;
    std::unique_ptr<policy::ratelimit::RateLimiter> reward_;
};

}  // namespace slipstream::agent::decide
