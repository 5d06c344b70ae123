// WorkerPool: every job runs once on a worker, the queue bound answers resource_exhausted, shutdown drains.
#include "store/worker_pool.h"

#include <gtest/gtest.h>

#include <atomic>
#include <future>

namespace slipstream::store {
namespace {

TEST(WorkerPool, RunsEveryJobWithItsWorkerIndex) {
    std::atomic<int> ran{0};
    std::atomic<bool> bad_index{false};
    {
        WorkerPool pool({.threads = 3, .max_queue = 1000, .name = "t"});
        EXPECT_EQ(pool.threads(), 3u);
        for (int i = 0; i < 100; ++i) {
            ASSERT_TRUE(pool.submit([&](std::size_t w) {
                                if (w >= 3) bad_index = true;
                                ran.fetch_add(1);
                            })
                            .is_ok());
        }
    }  // the destructor runs what is queued
    EXPECT_EQ(ran.load(), 100);
    EXPECT_FALSE(bad_index.load());
}

TEST(WorkerPool, FullQueueIsRefused) {
    WorkerPool pool({.threads = 1, .max_queue = 2, .name = "t"});
    std::promise<void> release;
    std::shared_future<void> gate = release.get_future().share();
    std::promise<void> started;
    ASSERT_TRUE(pool.submit([&, gate](std::size_t) {
                        started.set_value();
                        gate.wait();
                    })
                    .is_ok());
    started.get_future().wait();  // the only thread is busy; the queue holds what follows
    ASSERT_TRUE(pool.submit([](std::size_t) {}).is_ok());
    ASSERT_TRUE(pool.submit([](std::size_t) {}).is_ok());
    base::Status s = pool.submit([](std::size_t) {});
    EXPECT_TRUE(s.is_resource_exhausted());
    EXPECT_EQ(s.message(), "store worker queue is full (2 jobs)");
    EXPECT_EQ(pool.queued(), 2u);
    release.set_value();
}

}  // namespace
}  // namespace slipstream::store
