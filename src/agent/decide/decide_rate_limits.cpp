// DecideRateLimits: two GCRA limiters keyed by principal, read with the monotonic clock.
#include "agent/decide/decide_rate_limits.h"

#include <chrono>
#include <stdexcept>

namespace slipstream::agent::decide {

namespace {

base::Result<std::unique_ptr<policy::ratelimit::RateLimiter>> limiter(const char* option, const std::string& rate,
                                                                      const DecideRateOptions& o) {
    if (rate.empty()) return std::unique_ptr<policy::ratelimit::RateLimiter>();
    base::Result<policy::ratelimit::Rate> parsed = policy::ratelimit::Rate::parse(rate);
    if (!parsed.is_ok()) return base::Status::invalid_argument(std::string(option) + ": " + parsed.status().message());
    try {
        return std::make_unique<policy::ratelimit::RateLimiter>(
            policy::ratelimit::RateLimiterConfig{parsed.value(), o.burst, o.max_keys});
    } catch (const std::invalid_argument& e) {
        return base::Status::invalid_argument(std::string(option) + ": " + e.what());
    }
}

policy::ratelimit::Decision check(policy::ratelimit::RateLimiter* l, std::string_view key) {
    if (l == nullptr) return policy::ratelimit::Decision{.allowed = true};
    const auto now =
        std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch());
    return l->check(key, now.count());
}

}  // namespace

base::Result<std::shared_ptr<DecideRateLimits>> DecideRateLimits::make(const DecideRateOptions& options) {
    if (options.decide.empty() && options.reward.empty()) return std::shared_ptr<DecideRateLimits>();
    auto limits = std::make_shared<DecideRateLimits>();
    SLIPSTREAM_ASSIGN_OR_RETURN(limits->decide_, limiter("decide-rate-limit", options.decide, options));
    SLIPSTREAM_ASSIGN_OR_RETURN(limits->reward_, limiter("decide-reward-rate-limit", options.reward, options));
    return limits;
}

policy::ratelimit::Decision DecideRateLimits::decide(std::string_view key) {
    return check(decide_.get(), key);
}

policy::ratelimit::Decision DecideRateLimits::reward(std::string_view key) {
    return check(reward_.get(), key);
}

}  // namespace slipstream::agent::decide
