// ThreadPool tests: every index covered exactly once, for many sizes and thread counts, asleep or spinning.
#include "agent/infer/thread_pool.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

namespace slipstream::agent::infer {
namespace {

void expect_exact_cover(ThreadPool& pool, int64_t n) {
    std::vector<std::atomic<int>> hits(static_cast<std::size_t>(n));
    std::atomic<int> bad_ranges{0};
    pool.parallel_for(n, [&](int64_t b, int64_t e) {
        if (b < 0 || b >= e || e > n) bad_ranges.fetch_add(1);
        for (int64_t i = b; i < e; ++i)
            hits[static_cast<std::size_t>(i)].fetch_add(1);
    });
    EXPECT_EQ(bad_ranges.load(), 0) << "n=" << n;
    int64_t wrong = 0;
    for (auto& h : hits)
        wrong += h.load() != 1;
    EXPECT_EQ(wrong, 0) << "n=" << n << " threads=" << pool.size();
}

TEST(ThreadPoolTest, CoversEveryIndexOnceForManySizes) {
    for (int threads : {1, 2, 3, 4, 8}) {
        ThreadPool pool(threads);
        EXPECT_EQ(pool.size(), threads);
        for (int64_t n = 0; n <= 70; ++n)
            expect_exact_cover(pool, n);
        for (int64_t n : {127, 128, 129, 1000, 4097, 100000})
            expect_exact_cover(pool, n);
    }
}

TEST(ThreadPoolTest, ManyBackToBackCalls) {
    ThreadPool pool(3);
    std::atomic<int64_t> sum{0};
    for (int i = 0; i < 20000; ++i) {
        pool.parallel_for(7, [&](int64_t b, int64_t e) { sum.fetch_add(e - b); });
    }
    EXPECT_EQ(sum.load(), 7 * 20000);
}

TEST(ThreadPoolTest, WakesWorkersThatWentToSleep) {
    ThreadPool pool(3);
    for (int i = 0; i < 5; ++i) {
        // Long enough that the workers stop spinning and block on the condition variable.
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
        expect_exact_cover(pool, 1000);
    }
}

TEST(ThreadPoolTest, SingleThreadRunsOnCaller) {
    ThreadPool pool(1);
    EXPECT_EQ(pool.size(), 1);
    const auto caller = std::this_thread::get_id();
    int calls = 0;
    pool.parallel_for(100, [&](int64_t b, int64_t e) {
        EXPECT_EQ(std::this_thread::get_id(), caller);
        EXPECT_EQ(b, 0);
        EXPECT_EQ(e, 100);
        ++calls;
    });
    EXPECT_EQ(calls, 1);
}

TEST(ThreadPoolTest, DefaultSizeIsAtLeastOne) {
    ThreadPool pool;
    EXPECT_GE(pool.size(), 1);
    expect_exact_cover(pool, 999);
}

TEST(ThreadPoolTest, DestroyedWhileIdle) {
    for (int i = 0; i < 50; ++i) {
        ThreadPool fresh(4);  // never used
    }
    for (int i = 0; i < 50; ++i) {
        ThreadPool used(4);
        expect_exact_cover(used, 64);
    }
    SUCCEED();
}

TEST(ThreadPoolTest, AcceptsLvalueAndConstCallables) {
    ThreadPool pool(2);
    std::atomic<int64_t> sum{0};
    auto fn = [&](int64_t b, int64_t e) { sum.fetch_add(e - b); };
    pool.parallel_for(50, fn);
    const auto& cfn = fn;
    pool.parallel_for(50, cfn);
    EXPECT_EQ(sum.load(), 100);
}

}  // namespace
}  // namespace slipstream::agent::infer
