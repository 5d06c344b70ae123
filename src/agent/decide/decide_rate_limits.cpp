// DecideRateLimits: two GCRA limiters keyed by principal, read with the monotonic clock.
#include "agent/decide/decide_rate_limits.h"

#include <algorithm>
#include <chrono>
#include <stdexcept>

#include "base/hex.h"
#include "policy/ratelimit/batch_decision.h"

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

// The shared table's key: printable text (a principal or an address with other bytes in hex).
std::string store_key(std::string_view prefix, std::string_view key) {
    const bool printable = key.size() <= 256 && std::all_of(key.begin(), key.end(), [](char c) {
                               return static_cast<unsigned char>(c) > 0x20 && static_cast<unsigned char>(c) < 0x7F;
                           });
    std::string out(prefix);
    if (printable) return out + std::string(key);
    out += "x:";
    base::append_hex(out, key.substr(0, 128));
    return out;
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
    if (!options.decide.empty()) limits->decide_rate_ = policy::ratelimit::Rate::parse(options.decide).value();
    if (!options.reward.empty()) limits->reward_rate_ = policy::ratelimit::Rate::parse(options.reward).value();
    limits->burst_ = options.burst;
    limits->store_ = options.store;
    return limits;
}

policy::ratelimit::Decision DecideRateLimits::decide(std::string_view key) {
    return check(decide_.get(), key);
}

policy::ratelimit::Decision DecideRateLimits::reward(std::string_view key) {
    return check(reward_.get(), key);
}

void DecideRateLimits::take_decisions(const std::string& key, std::uint32_t count, Taken done) {
    take(decide_.get(), decide_rate_, "decide:", key, count, std::move(done));
}

void DecideRateLimits::take_rewards(const std::string& key, std::uint32_t count, Taken done) {
    take(reward_.get(), reward_rate_, "reward:", key, count, std::move(done));
}

void DecideRateLimits::take(policy::ratelimit::RateLimiter* local, const std::optional<policy::ratelimit::Rate>& rate,
                            std::string_view prefix, const std::string& key, std::uint32_t count, Taken done) {
    // This process's limiter, one request at a time: the first refusal ends the count.
    auto locally = [local, key](std::uint32_t n, const Taken& answer) {
        for (std::uint32_t i = 0; i < n; ++i) {
            const policy::ratelimit::Decision d = check(local, key);
            if (!d.allowed) return answer(i, d);
        }
        answer(n, {});
    };
    if (local == nullptr || !store_ || count == 0) return locally(count, done);
    const std::uint64_t burst = burst_ != 0 ? burst_ : rate->count();
    RateLimitCheck c{store_key(prefix, key), rate->interval_num(), rate->interval_den(), burst, count};
    store_->check({std::move(c)}, [self = shared_from_this(), locally, rate = *rate, burst, count,
                                   done = std::move(done)](bool ok, std::vector<RateLimitOutcome> out) {
        if (!ok || out.size() != 1) return locally(count, done);  // the store could not answer: this process decides
        const RateLimitOutcome& o = out[0];
        if (o.allowed >= count) return done(count, {});
        done(o.allowed, policy::ratelimit::batch_decision(rate, burst, o.allowed, o.tat_ahead_ns, o.allowed));
    });
}

}  // namespace slipstream::agent::decide
