// Hot-path costs: counter inc and histogram observe, single thread and two threads on one metric.
// The plain Threads(2) runs show contention only on an idle machine (the threads must really run at the
// same time); the BM_Burst* runs line the threads up before each burst, so they measure it on a busy one.
#include <benchmark/benchmark.h>

#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

#include "metrics/registry.h"
#include "metrics/thread_shard.h"

namespace slipstream::metrics {
namespace {

// One registry for the whole run, so the threads of a multi-threaded benchmark share the metrics.
Registry& registry() {
    static Registry r(RegistryOptions{.shards = 8});
    return r;
}
Counter& counter() {
    static Counter& c = registry().counter("bench_total", "");
    return c;
}
Histogram& histogram() {
    static Histogram& h = registry().histogram("bench_seconds", "", Buckets::latency());
    return h;
}
Gauge& gauge() {
    static Gauge& g = registry().gauge("bench_gauge", "");
    return g;
}

// Latencies spread over every bucket, so the bucket search sees varied inputs.
const std::vector<std::uint64_t>& latencies() {
    static const std::vector<std::uint64_t> v = [] {
        std::vector<std::uint64_t> out;
        std::uint64_t x = 88172645463325252ull;
        for (int i = 0; i < 4096; ++i) {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            out.push_back(x % 20'000'000'000ull >> (x % 24));
        }
        return out;
    }();
    return v;
}

// The design this module rejects, for comparison: one cache-line-padded atomic shared by all threads.
struct alignas(64) PaddedAtomic {
    std::atomic<std::uint64_t> v{0};
};
PaddedAtomic shared_atomic;

void BM_CounterInc(benchmark::State& state) {
    Counter& c = counter();
    for (auto _ : state)
        c.inc();
    state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_CounterInc)->Threads(1)->Threads(2)->UseRealTime();

// Both threads forced onto one shard: the cost when there are more writing threads than shards.
void BM_CounterIncSameShard(benchmark::State& state) {
    set_this_thread_shard(0);
    Counter& c = counter();
    for (auto _ : state)
        c.inc();
    state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_CounterIncSameShard)->Threads(1)->Threads(2)->UseRealTime();

void BM_SharedAtomicInc(benchmark::State& state) {
    for (auto _ : state)
        shared_atomic.v.fetch_add(1, std::memory_order_relaxed);
    state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_SharedAtomicInc)->Threads(1)->Threads(2)->UseRealTime();

void BM_HistogramObserve(benchmark::State& state) {
    Histogram& h = histogram();
    const std::vector<std::uint64_t>& v = latencies();
    std::size_t i = 0;
    for (auto _ : state)
        h.observe(v[i++ & 4095]);
    state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_HistogramObserve)->Threads(1)->Threads(2)->UseRealTime();

void BM_GaugeInc(benchmark::State& state) {
    Gauge& g = gauge();
    for (auto _ : state)
        g.inc();
    state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_GaugeInc)->Threads(1)->Threads(2)->UseRealTime();

void BM_GaugeSet(benchmark::State& state) {
    Gauge& g = gauge();
    std::int64_t i = 0;
    for (auto _ : state)
        g.set(++i);
    state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_GaugeSet);

// Contention even on a busy machine: the threads meet at a spin barrier before each burst of kBurst ops,
// so their bursts overlap; the timer runs only during the bursts. Report: "ns_per_op" per thread.
constexpr int kBurst = 20'000;
std::atomic<std::int64_t> arrivals{0};

template <typename Op>
void run_bursts(benchmark::State& state, Op op) {
    if (state.thread_index() == 0) arrivals.store(0);
    std::int64_t round = 0;
    std::uint64_t i = 0;
    for (auto _ : state) {
        state.PauseTiming();
        ++round;
        arrivals.fetch_add(1);
        while (arrivals.load() < round * state.threads()) {
        }
        state.ResumeTiming();
        for (int k = 0; k < kBurst; ++k)
            op(i++);
    }
    // Per thread: the items of all threads over the CPU time of all threads, inverted.
    state.counters["ns_per_op"] = benchmark::Counter(static_cast<double>(state.iterations()) * kBurst,
                                                     benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

void BM_BurstCounterInc(benchmark::State& state) {
    Counter& c = counter();
    run_bursts(state, [&](std::uint64_t) { c.inc(); });
}
BENCHMARK(BM_BurstCounterInc)->Threads(1)->Threads(2);

void BM_BurstSharedAtomicInc(benchmark::State& state) {
    run_bursts(state, [](std::uint64_t) { shared_atomic.v.fetch_add(1, std::memory_order_relaxed); });
}
BENCHMARK(BM_BurstSharedAtomicInc)->Threads(1)->Threads(2);

void BM_BurstHistogramObserve(benchmark::State& state) {
    Histogram& h = histogram();
    const std::vector<std::uint64_t>& v = latencies();
    run_bursts(state, [&](std::uint64_t i) { h.observe(v[i & 4095]); });
}
BENCHMARK(BM_BurstHistogramObserve)->Threads(1)->Threads(2);

void BM_BurstGaugeInc(benchmark::State& state) {
    Gauge& g = gauge();
    run_bursts(state, [&](std::uint64_t) { g.inc(); });
}
BENCHMARK(BM_BurstGaugeInc)->Threads(1)->Threads(2);

// Looking a child up (lock + map search): why callers keep the reference.
void BM_FamilyWithExisting(benchmark::State& state) {
    Registry r;
    CounterFamily& f = r.counter_family("f_total", "", {"route", "method", "status"});
    for (int i = 0; i < 100; ++i)
        f.with({"/route/" + std::to_string(i), "GET", "200"});
    for (auto _ : state)
        benchmark::DoNotOptimize(&f.with({"/route/57", "GET", "200"}));
}
BENCHMARK(BM_FamilyWithExisting);

// A scrape of 300 labelled counters and 100 labelled latency histograms.
void BM_Render(benchmark::State& state) {
    Registry r;
    CounterFamily& c = r.counter_family("requests_total", "Requests.", {"route", "method", "status"});
    HistogramFamily& h = r.histogram_family("duration_seconds", "Latency.", {"route"}, Buckets::latency());
    for (int i = 0; i < 100; ++i) {
        std::string route = "/route/" + std::to_string(i);
        for (const char* status : {"200", "404", "500"})
            c.with({route, "GET", status}).inc(i);
        h.with({route}).observe(static_cast<std::uint64_t>(i) * 100'000);
    }
    std::string out;
    for (auto _ : state) {
        out.clear();
        r.render(out);
        benchmark::DoNotOptimize(out.data());
    }
    state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * out.size()));
}
BENCHMARK(BM_Render);

}  // namespace
}  // namespace slipstream::metrics

BENCHMARK_MAIN();
