// Tests for Task: inline and heap storage, move-only captures, exact destruction counts.
#include "net/task.h"

#include <gtest/gtest.h>

#include <array>
#include <memory>
#include <utility>

namespace slipstream::net {
namespace {

struct Counted {
    int* destroyed;
    int* calls;
    explicit Counted(int* d, int* c) : destroyed(d), calls(c) {}
    Counted(Counted&& o) noexcept : destroyed(std::exchange(o.destroyed, nullptr)), calls(o.calls) {}
    ~Counted() {
        if (destroyed != nullptr) ++*destroyed;
    }
    void operator()() { ++*calls; }
};

struct BigCounted : Counted {
    using Counted::Counted;
    std::array<char, 128> padding{};
};

TEST(Task, EmptyByDefault) {
    Task t;
    EXPECT_FALSE(static_cast<bool>(t));
}

TEST(Task, CallableMoreThanOnce) {
    int n = 0;
    Task t([&n] { ++n; });
    ASSERT_TRUE(static_cast<bool>(t));
    t();
    t();
    EXPECT_EQ(n, 2);
}

TEST(Task, AcceptsMoveOnlyCapture) {
    auto p = std::make_unique<int>(41);
    int seen = 0;
    Task t([p = std::move(p), &seen] { seen = *p + 1; });
    Task moved(std::move(t));
    EXPECT_FALSE(static_cast<bool>(t));  // NOLINT: testing moved-from state
    moved();
    EXPECT_EQ(seen, 42);
}

TEST(Task, InlineAndHeapDestroyExactlyOnce) {
    for (bool big : {false, true}) {
        int destroyed = 0;
        int calls = 0;
        {
            Task a = big ? Task(BigCounted(&destroyed, &calls)) : Task(Counted(&destroyed, &calls));
            Task b(std::move(a));
            Task c;
            c = std::move(b);
            c();
            EXPECT_EQ(destroyed, 0) << "big=" << big;
        }
        EXPECT_EQ(destroyed, 1) << "big=" << big;
        EXPECT_EQ(calls, 1) << "big=" << big;
    }
}

TEST(Task, ResetDestroysAndAssignReplaces) {
    int destroyed = 0;
    int calls = 0;
    Task t(Counted(&destroyed, &calls));
    t.reset();
    EXPECT_EQ(destroyed, 1);
    EXPECT_FALSE(static_cast<bool>(t));
    t = Task(Counted(&destroyed, &calls));
    t = Task([] {});
    EXPECT_EQ(destroyed, 2);
}

}  // namespace
}  // namespace slipstream::net
