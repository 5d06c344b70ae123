// Micro-benchmark: RateLimiter::check on a hot key, over many keys, on new keys (eviction) and threads.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "policy/ratelimit/rate_limiter.h"

namespace slipstream::policy::ratelimit {
namespace {

constexpr std::int64_t kT0 = 1'000'000'000'000;
constexpr std::int64_t kStepNs = 1'000;  // the fake clock moves 1 us per check

RateLimiterConfig config(std::string_view rate, std::size_t max_keys = 100'000) {
    return RateLimiterConfig{Rate::parse_or_throw(rate), 0, max_keys, 64};
}

// Client addresses "10.a.b.c", the common key when no principal is authenticated.
std::vector<std::string> addresses(std::size_t n) {
    std::vector<std::string> out;
    out.reserve(n);
    for (std::size_t i = 0; i < n; ++i) {
        out.push_back("10." + std::to_string((i >> 16) & 255) + "." + std::to_string((i >> 8) & 255) + "." +
                      std::to_string(i & 255));
    }
    return out;
}

void BM_CheckHotKey(benchmark::State& state, std::string_view rate) {
    RateLimiter limiter(config(rate));
    std::int64_t now = kT0;
    for (auto _ : state) {
        benchmark::DoNotOptimize(limiter.check("principal:alice", now));
        now += kStepNs;
    }
}
BENCHMARK_CAPTURE(BM_CheckHotKey, interval_whole_ns, "100/s");
BENCHMARK_CAPTURE(BM_CheckHotKey, interval_fractional, "7/s");

void BM_CheckHotKeyOverride(benchmark::State& state) {
    RateLimiter limiter(config("100/s"));
    const Rate own = Rate::parse_or_throw("6000/min");
    std::int64_t now = kT0;
    for (auto _ : state) {
        benchmark::DoNotOptimize(limiter.check("principal:alice", now, &own));
        now += kStepNs;
    }
}
BENCHMARK(BM_CheckHotKeyOverride);

// N remembered keys visited in a shuffled cycle: the table's cache misses, not the hot path's.
void BM_CheckManyKeys(benchmark::State& state) {
    const auto n = static_cast<std::size_t>(state.range(0));
    RateLimiter limiter(config("100/s", 2 * n));  // room for every key in every shard
    std::vector<std::string> keys = addresses(n);
    std::shuffle(keys.begin(), keys.end(), std::mt19937_64(1));
    std::int64_t now = kT0;
    for (const std::string& k : keys)
        (void)limiter.check(k, now);
    std::size_t i = 0;
    for (auto _ : state) {
        benchmark::DoNotOptimize(limiter.check(keys[i], now));
        now += kStepNs;
        if (++i == n) i = 0;
    }
    state.counters["keys"] = static_cast<double>(limiter.stats().keys);
}
BENCHMARK(BM_CheckManyKeys)->Arg(1'000)->Arg(10'000)->Arg(100'000);

// Every check a key not remembered, in a full table: copy the key, evict the least recently used.
void BM_CheckNewKeysEvicting(benchmark::State& state) {
    RateLimiter limiter(config("100/s", 10'000));
    const std::vector<std::string> keys = addresses(200'000);
    std::size_t i = 0;
    for (auto _ : state) {
        // The time stands still, so no bucket refills and every eviction is a least recently used one.
        benchmark::DoNotOptimize(limiter.check(keys[i], kT0));
        if (++i == keys.size()) i = 0;
    }
    const RateLimiterStats s = limiter.stats();
    state.counters["evicted_lru"] = static_cast<double>(s.evicted_lru);
}
BENCHMARK(BM_CheckNewKeysEvicting);

// As above, but the clock runs: buckets refill (10 ms each at 100/s) and full shards sweep them.
void BM_CheckNewKeysSweeping(benchmark::State& state) {
    RateLimiter limiter(config("100/s", 10'000));
    const std::vector<std::string> keys = addresses(200'000);
    std::int64_t now = kT0;
    std::size_t i = 0;
    for (auto _ : state) {
        benchmark::DoNotOptimize(limiter.check(keys[i], now));
        now += kStepNs;
        if (++i == keys.size()) i = 0;
    }
    const RateLimiterStats s = limiter.stats();
    state.counters["evicted_full"] = static_cast<double>(s.evicted_full);
    state.counters["evicted_lru"] = static_cast<double>(s.evicted_lru);
}
BENCHMARK(BM_CheckNewKeysSweeping);

// Threads on one shared key (one shard's lock) and on a key each (distinct shards, mostly).
RateLimiter& shared_limiter() {
    static RateLimiter limiter(config("1000000/s"));
    return limiter;
}

void BM_CheckThreadsSharedKey(benchmark::State& state) {
    RateLimiter& limiter = shared_limiter();
    std::int64_t now = kT0;
    for (auto _ : state) {
        benchmark::DoNotOptimize(limiter.check("principal:shared", now));
        now += kStepNs;
    }
}
BENCHMARK(BM_CheckThreadsSharedKey)->ThreadRange(1, 2)->UseRealTime();

void BM_CheckThreadsOwnKey(benchmark::State& state) {
    RateLimiter& limiter = shared_limiter();
    const std::string key = "principal:thread-" + std::to_string(state.thread_index());
    std::int64_t now = kT0;
    for (auto _ : state) {
        benchmark::DoNotOptimize(limiter.check(key, now));
        now += kStepNs;
    }
}
BENCHMARK(BM_CheckThreadsOwnKey)->ThreadRange(1, 2)->UseRealTime();

void BM_ParseRate(benchmark::State& state) {
    const std::string_view texts[] = {"100/s", "6000/min", "10/5s", "1000000/d"};
    std::size_t i = 0;
    for (auto _ : state) {
        benchmark::DoNotOptimize(Rate::parse(texts[i]));
        if (++i == std::size(texts)) i = 0;
    }
}
BENCHMARK(BM_ParseRate);

}  // namespace
}  // namespace slipstream::policy::ratelimit

BENCHMARK_MAIN();
