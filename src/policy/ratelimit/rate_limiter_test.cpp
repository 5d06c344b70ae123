// RateLimiter: exact GCRA sequences on a fake clock, overrides, header values, eviction, threads.
#include "policy/ratelimit/rate_limiter.h"

#include <gtest/gtest.h>

#include <barrier>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace slipstream::policy::ratelimit {
namespace {

constexpr std::int64_t kMs = 1'000'000;
constexpr std::int64_t kSec = 1'000'000'000;
constexpr std::int64_t kT0 = 1'000 * kSec;  // the fake clock's start

RateLimiterConfig config(std::string_view rate, std::uint64_t burst = 0, std::size_t max_keys = 100'000,
                         std::size_t shards = 64) {
    return RateLimiterConfig{Rate::parse_or_throw(rate), burst, max_keys, shards};
}

// One request and the decision expected for it; times are offsets from kT0.
struct Step {
    std::int64_t at_ns;
    std::string key;
    bool allowed;
    std::uint64_t remaining;
    std::int64_t retry_after_ns;
    std::int64_t reset_ns;
};

void run_steps(RateLimiter& limiter, const std::vector<Step>& steps, std::uint64_t limit,
               const Rate* override = nullptr) {
    for (std::size_t i = 0; i < steps.size(); ++i) {
        const Step& s = steps[i];
        SCOPED_TRACE("step " + std::to_string(i) + " at +" + std::to_string(s.at_ns) + " ns, key " + s.key);
        const Decision d = limiter.check(s.key, kT0 + s.at_ns, override);
        EXPECT_EQ(d.allowed, s.allowed);
        EXPECT_EQ(d.limit, limit);
        EXPECT_EQ(d.remaining, s.remaining);
        EXPECT_EQ(d.retry_after_ns, s.retry_after_ns);
        EXPECT_EQ(d.reset_ns, s.reset_ns);
    }
}

TEST(RateLimiterTest, BurstThenRefill) {
    RateLimiter limiter(config("2/s", 4));  // one request per 500 ms, 4 at once
    EXPECT_EQ(limiter.burst(), 4u);
    run_steps(limiter,
              {
                  {0, "k", true, 3, 0, 500 * kMs},
                  {0, "k", true, 2, 0, 1000 * kMs},
                  {0, "k", true, 1, 0, 1500 * kMs},
                  {0, "k", true, 0, 0, 2000 * kMs},
                  {0, "k", false, 0, 500 * kMs, 2000 * kMs},
                  {499 * kMs, "k", false, 0, 1 * kMs, 1501 * kMs},
                  {500 * kMs, "k", true, 0, 0, 2000 * kMs},
                  {500 * kMs, "k", false, 0, 500 * kMs, 2000 * kMs},
                  // 1250 ms later: 2.5 intervals refilled, so two requests and half of a third.
                  {1750 * kMs, "k", true, 1, 0, 1250 * kMs},
                  {1750 * kMs, "k", true, 0, 0, 1750 * kMs},
                  {1750 * kMs, "k", false, 0, 250 * kMs, 1750 * kMs},
                  // Idle long enough: full again, and never fuller than the burst.
                  {10 * kSec, "k", true, 3, 0, 500 * kMs},
              },
              4);
}

TEST(RateLimiterTest, DefaultBurstIsTheCount) {
    RateLimiter limiter(config("3/m"));
    EXPECT_EQ(limiter.burst(), 3u);
    run_steps(limiter,
              {
                  {0, "k", true, 2, 0, 20 * kSec},
                  {0, "k", true, 1, 0, 40 * kSec},
                  {0, "k", true, 0, 0, 60 * kSec},
                  {0, "k", false, 0, 20 * kSec, 60 * kSec},
                  {20 * kSec, "k", true, 0, 0, 60 * kSec},
              },
              3);
}

// 3/s: the interval is 333333333.33 ns; the sequence is exact, with durations rounded up.
TEST(RateLimiterTest, FractionalIntervalIsExact) {
    RateLimiter limiter(config("3/s"));
    run_steps(limiter,
              {
                  {0, "k", true, 2, 0, 333'333'334},
                  {0, "k", true, 1, 0, 666'666'667},
                  {0, "k", true, 0, 0, 1'000'000'000},
                  {0, "k", false, 0, 333'333'334, 1'000'000'000},
                  {333'333'333, "k", false, 0, 1, 666'666'667},
                  {333'333'334, "k", true, 0, 0, 1'000'000'000},
                  {666'666'666, "k", false, 0, 1, 666'666'668},
                  {666'666'667, "k", true, 0, 0, 1'000'000'000},
                  {999'999'999, "k", false, 0, 1, 666'666'668},
                  {1'000'000'000, "k", true, 0, 0, 1'000'000'000},
                  {1'000'000'000, "k", false, 0, 333'333'334, 1'000'000'000},
              },
              3);
    // Over [0, 1 s]: the burst of 3 and exactly 3 refills.
    EXPECT_EQ(limiter.stats().allowed, 6u);
    EXPECT_EQ(limiter.stats().refused, 5u);
}

TEST(RateLimiterTest, OverrideRateAppliesToItsKey) {
    RateLimiter limiter(config("100/s"));
    const Rate slow = Rate::parse_or_throw("2/m");
    run_steps(limiter,
              {
                  {0, "alice", true, 1, 0, 30 * kSec},
                  {0, "alice", true, 0, 0, 60 * kSec},
                  {0, "alice", false, 0, 30 * kSec, 60 * kSec},
                  {29 * kSec, "alice", false, 0, 1 * kSec, 31 * kSec},
                  {30 * kSec, "alice", true, 0, 0, 60 * kSec},
              },
              2, &slow);
    // Without the override, another key has the configured rate.
    run_steps(limiter, {{0, "bob", true, 99, 0, 10 * kMs}}, 100);
    const Decision d = limiter.check("alice", kT0 + 30 * kSec, &slow);
    const HeaderValues h = header_values(d);
    EXPECT_FALSE(d.allowed);
    EXPECT_EQ(h.limit, 2u);
    EXPECT_EQ(h.remaining, 0u);
    EXPECT_EQ(h.retry_after_s, 30);
    EXPECT_EQ(h.reset_s, 60);
}

TEST(RateLimiterTest, KeysAreIndependent) {
    RateLimiter limiter(config("1/s"));
    const std::string nul_key("a\0b", 3);
    run_steps(limiter,
              {
                  {0, "a", true, 0, 0, kSec},
                  {0, "a", false, 0, kSec, kSec},
                  {0, "b", true, 0, 0, kSec},
                  {0, "", true, 0, 0, kSec},
                  {0, nul_key, true, 0, 0, kSec},
                  {0, "10.0.0.1", true, 0, 0, kSec},
                  {0, "2001:db8::1", true, 0, 0, kSec},
                  {0, "a", false, 0, kSec, kSec},
                  {0, nul_key, false, 0, kSec, kSec},
                  {0, "", false, 0, kSec, kSec},
              },
              1);
    EXPECT_EQ(limiter.stats().keys, 6u);
}

TEST(RateLimiterTest, EarlierTimeIsStricterNotLooser) {
    RateLimiter limiter(config("1/s"));
    run_steps(limiter,
              {
                  {0, "k", true, 0, 0, kSec},
                  {-5 * kSec, "k", false, 0, 6 * kSec, 6 * kSec},
                  {kSec, "k", true, 0, 0, kSec},
              },
              1);
}

TEST(RateLimiterTest, HeaderValues) {
    const struct {
        Decision decision;
        std::int64_t reset_s;
        std::int64_t retry_after_s;
    } cases[] = {
        {{true, 10, 9, 0, 0}, 0, 0},
        {{true, 10, 9, 0, 1}, 1, 0},
        {{true, 10, 9, 0, kSec}, 1, 0},
        {{true, 10, 9, 0, kSec + 1}, 2, 0},
        {{true, 10, 9, 0, 2'500 * kMs}, 3, 0},
        {{false, 10, 0, 1, kSec}, 1, 1},
        {{false, 10, 0, kSec, kSec}, 1, 1},
        {{false, 10, 0, kSec + 1, 3 * kSec}, 3, 2},
        {{false, 10, 0, 0, 0}, 0, 1},  // Retry-After is never 0 on a refusal
        {{false, 10, 0, 59 * kSec + 1, 60 * kSec}, 60, 60},
    };
    for (const auto& c : cases) {
        const HeaderValues h = header_values(c.decision);
        EXPECT_EQ(h.limit, c.decision.limit);
        EXPECT_EQ(h.remaining, c.decision.remaining);
        EXPECT_EQ(h.reset_s, c.reset_s) << c.decision.reset_ns;
        EXPECT_EQ(h.retry_after_s, c.retry_after_s) << c.decision.retry_after_ns;
    }
}

TEST(RateLimiterTest, EvictsFullBucketsFirstThenLeastRecentlyUsed) {
    RateLimiter limiter(config("1/s", 2, 3, 1));  // one shard of three keys
    run_steps(limiter,
              {
                  {0, "a", true, 1, 0, kSec},
                  {0, "a", true, 0, 0, 2 * kSec},
                  {0, "b", true, 1, 0, kSec},
                  {0, "c", true, 1, 0, kSec},
                  // b and c are full again at +1 s, a is not: "d" makes room by dropping b and c.
                  {kSec, "d", true, 1, 0, kSec},
                  // a was kept: one request refilled, none more (a fresh key would have 1 remaining).
                  {kSec, "a", true, 0, 0, 2 * kSec},
                  {kSec, "e", true, 1, 0, kSec},
              },
              2);
    RateLimiterStats s = limiter.stats();
    EXPECT_EQ(s.keys, 3u);
    EXPECT_EQ(s.evicted_full, 2u);
    EXPECT_EQ(s.evicted_lru, 0u);

    // No bucket is full now: "f" evicts the least recently used, d (a was used after it).
    run_steps(limiter,
              {
                  {kSec, "f", true, 1, 0, kSec},
                  {kSec, "a", false, 0, kSec, 2 * kSec},  // still remembered
                  // d starts over: the least recently used is now e.
                  {kSec, "d", true, 1, 0, kSec},
                  {kSec, "a", false, 0, kSec, 2 * kSec},
                  {kSec, "f", true, 0, 0, 2 * kSec},
              },
              2);
    s = limiter.stats();
    EXPECT_EQ(s.keys, 3u);
    EXPECT_EQ(s.evicted_full, 2u);
    EXPECT_EQ(s.evicted_lru, 2u);
    EXPECT_EQ(s.allowed, 10u);
    EXPECT_EQ(s.refused, 2u);

    // sweep(): d is full at +2 s, f and a are not; all are full at +3 s.
    EXPECT_EQ(limiter.sweep(kT0 + 2 * kSec - 1), 0u);
    EXPECT_EQ(limiter.sweep(kT0 + 2 * kSec), 1u);
    EXPECT_EQ(limiter.stats().keys, 2u);
    EXPECT_EQ(limiter.sweep(kT0 + 3 * kSec), 2u);
    s = limiter.stats();
    EXPECT_EQ(s.keys, 0u);
    EXPECT_EQ(s.evicted_full, 5u);
    EXPECT_EQ(s.evicted_lru, 2u);
}

TEST(RateLimiterTest, MaxKeysBoundsAllShards) {
    RateLimiter limiter(config("1/s", 0, 100, 64));
    EXPECT_EQ(limiter.shard_count(), 64u);
    for (int i = 0; i < 1000; ++i) {
        const Decision d = limiter.check("client-" + std::to_string(i), kT0);
        ASSERT_TRUE(d.allowed);
        ASSERT_EQ(d.remaining, 0u);
    }
    RateLimiterStats s = limiter.stats();
    // 1000 keys over 64 shards of 1 or 2 keys: every shard is filled, the rest evicted.
    EXPECT_EQ(s.keys, 100u);
    EXPECT_EQ(s.evicted_lru, 900u);
    EXPECT_EQ(s.evicted_full, 0u);
    // The last key of each shard is remembered and refused; at +1 s every bucket is full again.
    EXPECT_FALSE(limiter.check("client-999", kT0).allowed);
    EXPECT_EQ(limiter.sweep(kT0 + kSec), 100u);
    EXPECT_EQ(limiter.stats().keys, 0u);

    RateLimiter small(config("1/s", 0, 10, 64));
    EXPECT_EQ(small.shard_count(), 10u);  // at least one key per shard
    for (int i = 0; i < 100; ++i)
        (void)small.check("k" + std::to_string(i), kT0);
    EXPECT_EQ(small.stats().keys, 10u);
    EXPECT_EQ(small.stats().evicted_lru, 90u);
}

TEST(RateLimiterTest, ConfigBounds) {
    const struct {
        RateLimiterConfig config;
        std::string message;
    } bad[] = {
        {config("1/s", 0, 0), "rate limiter max_keys 0 is outside [1, 2^31)"},
        {config("1/s", 0, std::size_t{1} << 31), "rate limiter max_keys 2147483648 is outside [1, 2^31)"},
        {config("1/s", 0, 100, 0), "rate limiter shards 0 is outside [1, 1024]"},
        {config("1/s", 0, 100, 1025), "rate limiter shards 1025 is outside [1, 1024]"},
        {config("1/s", 1'000'000'001), "rate limiter burst 1000000001 exceeds 1000000000"},
        {config("1/365d", 101), "rate limiter burst 101 at 1/365d takes more than 100 years to refill"},
    };
    for (const auto& c : bad) {
        try {
            RateLimiter limiter(c.config);
            ADD_FAILURE() << "no exception for " << c.message;
        } catch (const std::invalid_argument& e) {
            EXPECT_EQ(std::string(e.what()), c.message);
        }
    }
    RateLimiter longest(config("1/365d", 100));
    EXPECT_EQ(longest.burst(), 100u);
    RateLimiter biggest(config("1000000000/ms", 1'000'000'000));
    EXPECT_TRUE(biggest.check("k", kT0).allowed);
}

// Threads share one key and each hammers one of its own, phase by phase on a common fake clock:
// every phase drains all buckets, so each key allows exactly burst + the intervals elapsed.
TEST(RateLimiterTest, ThreadsAllowExactlyBurstPlusRefills) {
    constexpr int kThreads = 4;
    constexpr int kPhases = 101;
    constexpr int kCallsPerPhase = 40;
    constexpr std::int64_t kStep = 100 * kMs;
    RateLimiter limiter(config("7/s", 5, 1000, 8));  // 1/7 s interval: refills do not align with phases
    std::vector<std::uint64_t> shared_allowed(kThreads, 0);
    std::vector<std::uint64_t> own_allowed(kThreads, 0);
    std::barrier sync(kThreads);
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
        threads.emplace_back([&, t] {
            const std::string own = "thread-" + std::to_string(t);
            for (int phase = 0; phase < kPhases; ++phase) {
                const std::int64_t now = kT0 + phase * kStep;
                for (int i = 0; i < kCallsPerPhase; ++i) {
                    shared_allowed[t] += limiter.check("shared", now).allowed ? 1 : 0;
                    own_allowed[t] += limiter.check(own, now).allowed ? 1 : 0;
                }
                sync.arrive_and_wait();
            }
        });
    }
    for (std::thread& th : threads)
        th.join();

    // 10 s elapsed between the first phase and the last: 70 intervals of 1/7 s, plus the burst of 5.
    constexpr std::uint64_t kExpected = 5 + 70;
    std::uint64_t shared_total = 0;
    for (int t = 0; t < kThreads; ++t) {
        shared_total += shared_allowed[t];
        EXPECT_EQ(own_allowed[t], kExpected) << t;
    }
    EXPECT_EQ(shared_total, kExpected);
    const RateLimiterStats s = limiter.stats();
    EXPECT_EQ(s.allowed + s.refused, std::uint64_t{2} * kThreads * kPhases * kCallsPerPhase);
    EXPECT_EQ(s.allowed, kExpected * (kThreads + 1));
    EXPECT_EQ(s.keys, static_cast<std::size_t>(kThreads + 1));
}

// Many threads, many keys, a table too small for them, overrides and sweeps at once: the counters
// add up and the bound holds.
TEST(RateLimiterTest, ThreadsWithEvictionKeepTheBounds) {
    constexpr int kThreads = 4;
    constexpr int kCalls = 5000;
    RateLimiter limiter(config("10/s", 0, 64, 4));
    const Rate fast = Rate::parse_or_throw("1000/s");
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
        threads.emplace_back([&, t] {
            for (int i = 0; i < kCalls; ++i) {
                const std::string key = "k" + std::to_string((i * 7 + t * 13) % 200);
                const std::int64_t now = kT0 + i * kMs;
                const Decision d = limiter.check(key, now, i % 3 == 0 ? &fast : nullptr);
                ASSERT_LT(d.remaining, d.limit);
                ASSERT_EQ(d.allowed, d.retry_after_ns == 0);
                if (t == 0 && i % 500 == 0) (void)limiter.sweep(now);
            }
        });
    }
    for (std::thread& th : threads)
        th.join();
    const RateLimiterStats s = limiter.stats();
    EXPECT_EQ(s.allowed + s.refused, std::uint64_t{kThreads} * kCalls);
    EXPECT_LE(s.keys, 64u);
    EXPECT_GT(s.evicted_full + s.evicted_lru, 0u);
}

}  // namespace
}  // namespace slipstream::policy::ratelimit
