// Concurrent updates from several threads sum exactly, on shared and distinct shards.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <string>
#include <thread>
#include <vector>

#include "metrics/registry.h"
#include "metrics/thread_shard.h"

namespace slipstream::metrics {
namespace {

constexpr int kThreads = 6;
constexpr std::uint64_t kIters = 100'000;

// Runs body(t) on kThreads threads; thread t pins itself to shard `shard_of(t)` first.
template <typename Body>
void run_threads(std::uint32_t (*shard_of)(int), Body body) {
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
        threads.emplace_back([t, shard_of, &body] {
            set_this_thread_shard(shard_of(t));
            body(t);
        });
    }
    for (std::thread& th : threads)
        th.join();
}

std::uint32_t own_shard(int t) {
    return static_cast<std::uint32_t>(t);
}
std::uint32_t same_shard(int /*t*/) {
    return 5;
}

class ConcurrencyTest : public ::testing::TestWithParam<std::uint32_t (*)(int)> {};

TEST_P(ConcurrencyTest, CountersSumExactly) {
    Registry registry(RegistryOptions{.shards = 4});  // fewer shards than threads: some threads share one
    Counter& c = registry.counter("c_total", "");
    DoubleCounter& d = registry.double_counter("d_total", "");
    CounterFamily& f = registry.counter_family("f_total", "", {"t"});
    run_threads(GetParam(), [&](int t) {
        Counter& mine = f.with({std::to_string(t % 2)});
        for (std::uint64_t i = 0; i < kIters; ++i) {
            c.inc();
            d.inc(0.5);  // exact in binary, so the sum is exact
            mine.inc(2);
        }
    });
    EXPECT_EQ(c.value(), kThreads * kIters);
    EXPECT_EQ(d.value(), static_cast<double>(kThreads * kIters) / 2);
    EXPECT_EQ(f.with({"0"}).value(), kThreads / 2 * kIters * 2);
    EXPECT_EQ(f.with({"1"}).value(), kThreads / 2 * kIters * 2);
}

TEST_P(ConcurrencyTest, HistogramSumsExactly) {
    Registry registry(RegistryOptions{.shards = 8});
    Histogram& h = registry.histogram("h", "", Buckets({10, 100}));
    run_threads(GetParam(), [&](int t) {
        for (std::uint64_t i = 0; i < kIters; ++i)
            h.observe(i % 3 == 0 ? 5 : (i % 3 == 1 ? 50 : 500));
    });
    HistogramSnapshot s = h.snapshot();
    const std::uint64_t per_bucket = kThreads * ((kIters + 2) / 3);
    EXPECT_EQ(s.counts[0], per_bucket);                     // i % 3 == 0: 33,334 per thread
    EXPECT_EQ(s.counts[1], kThreads * ((kIters + 1) / 3));  // i % 3 == 1: 33,333
    EXPECT_EQ(s.counts[2], kThreads * (kIters / 3));        // i % 3 == 2: 33,333
    EXPECT_EQ(s.count, kThreads * kIters);
    EXPECT_EQ(s.sum, kThreads * (5 * ((kIters + 2) / 3) + 50 * ((kIters + 1) / 3) + 500 * (kIters / 3)));
}

TEST_P(ConcurrencyTest, LocalHandlesSumExactly) {
    Registry registry(RegistryOptions{.shards = 4});
    Counter& c = registry.counter("c_total", "");
    Histogram& h = registry.histogram("h", "", Buckets({10, 100}));
    // One handle made on the main thread and used by every thread (still exact, only slower), and one
    // per thread made on that thread.
    const Counter::Local shared = c.local();
    run_threads(GetParam(), [&](int /*t*/) {
        const Counter::Local mine = c.local();
        const Histogram::Local hist = h.local();
        for (std::uint64_t i = 0; i < kIters; ++i) {
            mine.inc();
            shared.inc(2);
            hist.observe(i % 2 == 0 ? 5 : 500);
        }
    });
    EXPECT_EQ(c.value(), kThreads * kIters * 3);
    HistogramSnapshot s = h.snapshot();
    EXPECT_EQ(s.counts[0], kThreads * kIters / 2);
    EXPECT_EQ(s.counts[1], 0u);
    EXPECT_EQ(s.counts[2], kThreads * kIters / 2);
    EXPECT_EQ(s.sum, kThreads * kIters / 2 * 505);
}

TEST_P(ConcurrencyTest, GaugesBalance) {
    Registry registry(RegistryOptions{.shards = 2});
    Gauge& g = registry.gauge("g", "");
    DoubleGauge& d = registry.double_gauge("d", "");
    run_threads(GetParam(), [&](int t) {
        for (std::uint64_t i = 0; i < kIters; ++i) {
            g.inc(3);
            d.inc(0.25);
            g.dec();
        }
    });
    EXPECT_EQ(g.value(), static_cast<std::int64_t>(2 * kThreads * kIters));
    EXPECT_EQ(d.value(), static_cast<double>(kThreads * kIters) / 4);
}

INSTANTIATE_TEST_SUITE_P(Shards, ConcurrencyTest, ::testing::Values(&own_shard, &same_shard),
                         [](const auto& info) { return info.index == 0 ? "OwnShard" : "SameShard"; });

TEST(ConcurrentRegistryTest, ConcurrentWithReturnsOneChildPerLabels) {
    Registry registry(RegistryOptions{.shards = 2});
    CounterFamily& f = registry.counter_family("f_total", "", {"k"});
    std::vector<Counter*> seen(kThreads * 50);
    run_threads(&own_shard, [&](int t) {
        for (int k = 0; k < 50; ++k) {
            Counter& c = f.with({std::to_string(k)});
            c.inc();
            seen[t * 50 + k] = &c;
        }
    });
    EXPECT_EQ(f.size(), 50u);
    for (int t = 0; t < kThreads; ++t) {
        for (int k = 0; k < 50; ++k)
            EXPECT_EQ(seen[t * 50 + k], seen[k]);
    }
    for (int k = 0; k < 50; ++k)
        EXPECT_EQ(seen[k]->value(), static_cast<std::uint64_t>(kThreads));
}

TEST(ConcurrentRegistryTest, RenderWhileWritingAndRegistering) {
    Registry registry(RegistryOptions{.shards = 4});
    Counter& c = registry.counter("c_total", "");
    std::atomic<bool> stop{false};
    std::thread writer([&] {
        for (std::uint64_t i = 0; i < kIters; ++i)
            c.inc();
        for (int i = 0; i < 100; ++i) {
            std::string name = "gauge_";  // not "g" + ...: g++ 12 -O3 warns falsely (-Wrestrict, PR105329)
            name += std::to_string(i);
            registry.gauge(name, "").set(i);
        }
        stop.store(true);
    });
    std::string out;
    while (!stop.load()) {
        out.clear();
        registry.render(out);
        EXPECT_EQ(out.rfind("# TYPE c_total counter\nc_total ", 0), 0u);
    }
    writer.join();
    out.clear();
    registry.render(out);
    EXPECT_EQ(out.substr(0, out.find("# TYPE gauge_0")), "# TYPE c_total counter\nc_total 100000\n");
    EXPECT_NE(out.find("\ngauge_99 99\n"), std::string::npos);
}

}  // namespace
}  // namespace slipstream::metrics
