// Tests for IoThreadPool: thread names, start hooks on the loop thread, posting before start, stop/join.
#include "net/io_threads.h"

#include <gtest/gtest.h>
#include <pthread.h>

#include <future>
#include <string>
#include <vector>

namespace slipstream::net {
namespace {

std::string current_thread_name() {
    char name[16] = {};
    ::pthread_getname_np(::pthread_self(), name, sizeof name);
    return name;
}

TEST(IoThreadPool, ThreadsAreNamedAndOwnTheirLoops) {
    base::SystemClock clock;
    IoThreadPool pool(3, clock);
    ASSERT_EQ(pool.size(), 3u);
    std::vector<std::promise<std::string>> hook_names(3);
    std::vector<std::promise<bool>> hook_owner(3);
    pool.start([&](EventLoop& loop, std::size_t i) {
        hook_names[i].set_value(current_thread_name());
        hook_owner[i].set_value(loop.is_in_loop_thread() && &loop == &pool.loop(i));
    });
    EXPECT_TRUE(pool.started());
    for (std::size_t i = 0; i < 3; ++i) {
        EXPECT_EQ(hook_names[i].get_future().get(), "ss-io-" + std::to_string(i));
        EXPECT_TRUE(hook_owner[i].get_future().get());
        std::promise<std::string> task_name;
        pool.loop(i).post([&] { task_name.set_value(current_thread_name()); });
        EXPECT_EQ(task_name.get_future().get(), "ss-io-" + std::to_string(i));
        EXPECT_FALSE(pool.loop(i).is_in_loop_thread());
    }
    pool.stop();
    EXPECT_FALSE(pool.started());
    pool.stop();  // idempotent
}

TEST(IoThreadPool, TasksPostedBeforeStartRunAfterIt) {
    base::SystemClock clock;
    IoThreadPool pool(2, clock);
    std::promise<std::string> ran;
    pool.loop(1).post([&] { ran.set_value(current_thread_name()); });
    pool.start();
    EXPECT_EQ(ran.get_future().get(), "ss-io-1");
}

TEST(IoThreadPool, StopBeforeStartAndZeroThreads) {
    base::SystemClock clock;
    IoThreadPool pool(1, clock);
    pool.stop();
    EXPECT_THROW(IoThreadPool(0, clock), std::invalid_argument);
}

}  // namespace
}  // namespace slipstream::net
