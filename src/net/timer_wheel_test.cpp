// Tests for TimerWheel with a fake time: order, rounding, cancel/reschedule, long deadlines, callbacks.
#include "net/timer_wheel.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <random>
#include <vector>

namespace slipstream::net {
namespace {

constexpr std::int64_t kMs = base::kNanosPerMilli;
constexpr base::MonoNanos kOrigin = 1'000'000'000;
constexpr std::int64_t kTick = 4 * kMs;             // default options
constexpr std::int64_t kRevolution = 1024 * kTick;  // 4.096 s

// The time a timer with `deadline` fires at when time moves in small steps: the deadline rounded up to a tick.
base::MonoNanos rounded(base::MonoNanos deadline) {
    const std::int64_t d = deadline - kOrigin;
    return kOrigin + (d + kTick - 1) / kTick * kTick;
}

TEST(TimerWheel, FiresInDeadlineOrderAtRoundedDeadline) {
    // Deadlines in ms after the origin; several lie beyond one revolution (4096 ms).
    const std::vector<std::int64_t> deadlines_ms = {50, 10, 30, 5000, 9001, 4100, 1, 4096, 12000, 8};
    TimerWheel wheel(kOrigin);
    base::MonoNanos now = kOrigin;
    std::vector<std::int64_t> fired_ms;
    std::vector<base::MonoNanos> fired_at;
    std::vector<std::unique_ptr<Timer>> timers;
    for (std::int64_t ms : deadlines_ms) {
        timers.push_back(std::make_unique<Timer>([&, ms] {
            fired_ms.push_back(ms);
            fired_at.push_back(now);
        }));
        wheel.schedule(*timers.back(), kOrigin + ms * kMs);
    }
    EXPECT_EQ(wheel.size(), deadlines_ms.size());
    for (; now <= kOrigin + 13'000 * kMs; now += kMs)
        wheel.advance(now);

    const std::vector<std::int64_t> expected = {1, 8, 10, 30, 50, 4096, 4100, 5000, 9001, 12000};
    EXPECT_EQ(fired_ms, expected);
    ASSERT_EQ(fired_at.size(), expected.size());
    for (std::size_t i = 0; i < expected.size(); ++i) {
        EXPECT_EQ(fired_at[i], rounded(kOrigin + expected[i] * kMs)) << expected[i] << " ms";
    }
    EXPECT_EQ(wheel.size(), 0u);
}

TEST(TimerWheel, OneLargeAdvanceFiresEverythingInOrder) {
    const std::vector<std::int64_t> deadlines_ms = {9001, 30, 4100, 12000, 1, 5000};
    TimerWheel wheel(kOrigin);
    std::vector<std::int64_t> fired_ms;
    std::vector<std::unique_ptr<Timer>> timers;
    for (std::int64_t ms : deadlines_ms) {
        timers.push_back(std::make_unique<Timer>([&, ms] { fired_ms.push_back(ms); }));
        wheel.schedule(*timers.back(), kOrigin + ms * kMs);
    }
    EXPECT_EQ(wheel.advance(kOrigin + 20'000 * kMs), 6u);
    EXPECT_EQ(fired_ms, (std::vector<std::int64_t>{1, 30, 4100, 5000, 9001, 12000}));
}

TEST(TimerWheel, NeverFiresEarly) {
    TimerWheel wheel(kOrigin);
    int fired = 0;
    Timer t([&] { ++fired; });
    wheel.schedule(t, kOrigin + 5 * kMs);  // rounds up to the 8 ms tick
    EXPECT_EQ(wheel.advance(kOrigin + 5 * kMs), 0u);
    EXPECT_EQ(wheel.advance(kOrigin + 8 * kMs - 1), 0u);
    EXPECT_EQ(fired, 0);
    EXPECT_TRUE(t.scheduled());
    EXPECT_EQ(wheel.advance(kOrigin + 8 * kMs), 1u);
    EXPECT_EQ(fired, 1);
    EXPECT_FALSE(t.scheduled());
}

TEST(TimerWheel, CancelRemovesOnlyThatTimer) {
    TimerWheel wheel(kOrigin);
    std::vector<int> fired;
    Timer a([&] { fired.push_back(1); });
    Timer b([&] { fired.push_back(2); });
    Timer c([&] { fired.push_back(3); });
    wheel.schedule(a, kOrigin + 10 * kMs);
    wheel.schedule(b, kOrigin + 10 * kMs);
    wheel.schedule(c, kOrigin + 5000 * kMs);
    wheel.cancel(b);
    c.cancel();
    c.cancel();  // idempotent
    EXPECT_EQ(wheel.size(), 1u);
    EXPECT_EQ(wheel.advance(kOrigin + 10'000 * kMs), 1u);
    EXPECT_EQ(fired, (std::vector<int>{1}));
}

TEST(TimerWheel, RescheduleMovesDeadlineBothWays) {
    struct Case {
        std::int64_t first_ms;
        std::int64_t second_ms;
    };
    const Case cases[] = {{10, 50}, {500, 20}, {10, 6000}, {6000, 10}, {5000, 9200}, {9200, 5000}, {30, 30}};
    for (const Case& c : cases) {
        TimerWheel wheel(kOrigin);
        base::MonoNanos now = kOrigin;
        std::optional<base::MonoNanos> fired_at;
        Timer t([&] { fired_at = now; });
        wheel.schedule(t, kOrigin + c.first_ms * kMs);
        wheel.schedule(t, kOrigin + c.second_ms * kMs);
        EXPECT_EQ(wheel.size(), 1u);
        for (; now <= kOrigin + 10'000 * kMs; now += kMs)
            wheel.advance(now);
        ASSERT_TRUE(fired_at.has_value()) << c.first_ms << " -> " << c.second_ms;
        EXPECT_EQ(*fired_at, rounded(kOrigin + c.second_ms * kMs)) << c.first_ms << " -> " << c.second_ms;
    }
}

TEST(TimerWheel, PostponedRepeatedlyFiresOnceAtLastDeadline) {
    // The keep-alive pattern: each request pushes the idle deadline back.
    TimerWheel wheel(kOrigin);
    base::MonoNanos now = kOrigin;
    int fired = 0;
    base::MonoNanos fired_at = 0;
    Timer idle([&] {
        ++fired;
        fired_at = now;
    });
    for (; now <= kOrigin + 20'000 * kMs; now += kMs) {
        if (now <= kOrigin + 5'000 * kMs) wheel.schedule(idle, now + 1'000 * kMs);
        wheel.advance(now);
    }
    EXPECT_EQ(fired, 1);
    EXPECT_EQ(fired_at, kOrigin + 6'000 * kMs);
}

TEST(TimerWheel, SameDeadlineAgainIsANoOp) {
    // A connection re-arms with the loop's cached now() more than once per iteration; also after an earlier
    // move and inside another timer's callback, the timer still fires once, at the deadline.
    struct Case {
        const char* name;
        std::vector<base::MonoNanos> deadlines;  // scheduled in this order at kOrigin
    };
    const Case cases[] = {
        {"twice", {kOrigin + 100 * kMs, kOrigin + 100 * kMs}},
        {"earlier then same", {kOrigin + 9'000 * kMs, kOrigin + 50 * kMs, kOrigin + 50 * kMs}},
        {"later then same", {kOrigin + 50 * kMs, kOrigin + 9'000 * kMs, kOrigin + 9'000 * kMs}},
    };
    for (const Case& c : cases) {
        SCOPED_TRACE(c.name);
        TimerWheel wheel(kOrigin);
        int fired = 0;
        base::MonoNanos fired_at = 0;
        base::MonoNanos now = kOrigin;
        Timer t([&] {
            ++fired;
            fired_at = now;
        });
        for (base::MonoNanos d : c.deadlines)
            wheel.schedule(t, d);
        EXPECT_EQ(wheel.size(), 1u);
        for (; now <= kOrigin + 3 * kRevolution; now += kMs)
            wheel.advance(now);
        EXPECT_EQ(fired, 1);
        EXPECT_EQ(fired_at, rounded(c.deadlines.back()));
    }
    // Re-armed with its own deadline from a callback that fires in the same tick.
    TimerWheel wheel(kOrigin);
    int fired = 0;
    Timer second([&] { ++fired; });
    Timer first([&] { wheel.schedule(second, second.deadline()); });
    wheel.schedule(first, kOrigin + 8 * kMs);
    wheel.schedule(second, kOrigin + 8 * kMs);
    for (base::MonoNanos now = kOrigin; now <= kOrigin + 20 * kMs; now += kMs)
        wheel.advance(now);
    EXPECT_EQ(fired, 1);
    EXPECT_EQ(wheel.size(), 0u);
}

TEST(TimerWheel, DeadlineInThePastFiresAtNextTick) {
    TimerWheel wheel(kOrigin);
    wheel.advance(kOrigin + 100 * kMs);
    int fired = 0;
    Timer t([&] { ++fired; });
    wheel.schedule(t, kOrigin + 50 * kMs);
    EXPECT_EQ(wheel.advance(kOrigin + 100 * kMs), 0u);
    EXPECT_EQ(wheel.advance(kOrigin + 104 * kMs), 1u);
    EXPECT_EQ(fired, 1);
}

TEST(TimerWheel, CallbackCanRescheduleItself) {
    TimerWheel wheel(kOrigin);
    base::MonoNanos now = kOrigin;
    std::vector<base::MonoNanos> fired_at;
    Timer periodic;
    periodic.set_callback([&] {
        fired_at.push_back(now);
        wheel.schedule(periodic, now + 100 * kMs);
    });
    wheel.schedule(periodic, kOrigin + 100 * kMs);
    for (; now <= kOrigin + 1'000 * kMs; now += kMs)
        wheel.advance(now);
    ASSERT_EQ(fired_at.size(), 10u);
    for (std::size_t i = 0; i < fired_at.size(); ++i) {
        EXPECT_EQ(fired_at[i], kOrigin + static_cast<std::int64_t>(i + 1) * 100 * kMs);
    }
}

TEST(TimerWheel, CallbackCanCancelAndDestroyTimersDueInTheSameTick) {
    TimerWheel wheel(kOrigin);
    std::vector<int> fired;
    auto second = std::make_unique<Timer>([&] { fired.push_back(2); });
    auto third = std::make_unique<Timer>([&] { fired.push_back(3); });
    Timer first([&] {
        fired.push_back(1);
        second->cancel();
        third.reset();
    });
    wheel.schedule(first, kOrigin + 8 * kMs);
    wheel.schedule(*second, kOrigin + 8 * kMs);
    wheel.schedule(*third, kOrigin + 8 * kMs);
    EXPECT_EQ(wheel.advance(kOrigin + 8 * kMs), 1u);
    EXPECT_EQ(fired, (std::vector<int>{1}));
    EXPECT_EQ(wheel.size(), 0u);
    EXPECT_FALSE(second->scheduled());
}

TEST(TimerWheel, CallbackCanDestroyItsOwnTimer) {
    TimerWheel wheel(kOrigin);
    int fired = 0;
    std::unique_ptr<Timer> t;
    t = std::make_unique<Timer>([&] {
        ++fired;
        t.reset();
    });
    wheel.schedule(*t, kOrigin + kMs);
    EXPECT_EQ(wheel.advance(kOrigin + 4 * kMs), 1u);
    EXPECT_EQ(fired, 1);
    EXPECT_EQ(t, nullptr);
}

TEST(TimerWheel, NextWakeupIsATickBoundaryNeverAfterTheDeadline) {
    TimerWheel wheel(kOrigin);
    EXPECT_FALSE(wheel.next_wakeup().has_value());
    Timer near;
    wheel.schedule(near, kOrigin + 10 * kMs);
    EXPECT_EQ(wheel.next_wakeup(), kOrigin + 12 * kMs);
    near.cancel();
    EXPECT_FALSE(wheel.next_wakeup().has_value());

    // 5000 ms is tick 1250, slot 226: the slot first comes round at tick 226 (904 ms), a revolution early.
    Timer far;
    wheel.schedule(far, kOrigin + 5000 * kMs);
    EXPECT_EQ(wheel.next_wakeup(), kOrigin + 904 * kMs);
    EXPECT_EQ(wheel.advance(kOrigin + 904 * kMs), 0u);
    EXPECT_EQ(wheel.next_wakeup(), kOrigin + 5000 * kMs);
    EXPECT_EQ(wheel.advance(kOrigin + 5000 * kMs), 1u);  // no callback set: counted, nothing called
    EXPECT_FALSE(far.scheduled());
}

TEST(TimerWheel, HugeJumpTerminatesAndKeepsOrder) {
    TimerWheel wheel(kOrigin);
    std::vector<int> fired;
    Timer a([&] { fired.push_back(1); });
    Timer b([&] { fired.push_back(2); });
    Timer c([&] { fired.push_back(3); });
    wheel.schedule(b, kOrigin + 7'200 * base::kNanosPerSecond);
    wheel.schedule(a, kOrigin + 3'600 * base::kNanosPerSecond);
    wheel.schedule(c, kOrigin + 365LL * 86'400 * base::kNanosPerSecond);
    EXPECT_EQ(wheel.advance(kOrigin + 36'000 * base::kNanosPerSecond), 2u);
    EXPECT_EQ(fired, (std::vector<int>{1, 2}));
    EXPECT_EQ(wheel.size(), 1u);
    EXPECT_EQ(wheel.advance(kOrigin + 400LL * 86'400 * base::kNanosPerSecond), 1u);
    EXPECT_EQ(fired, (std::vector<int>{1, 2, 3}));
}

TEST(TimerWheel, TimerOutlivingItsWheelIsUnscheduled) {
    Timer t;
    {
        TimerWheel wheel(kOrigin);
        wheel.schedule(t, kOrigin + kRevolution * 3);
        EXPECT_TRUE(t.scheduled());
    }
    EXPECT_FALSE(t.scheduled());
}

TEST(TimerWheel, ScheduleOnAnotherWheelMovesTheTimer) {
    TimerWheel a(kOrigin);
    TimerWheel b(kOrigin);
    int fired = 0;
    Timer t([&] { ++fired; });
    a.schedule(t, kOrigin + 10 * kMs);
    b.schedule(t, kOrigin + 20 * kMs);
    EXPECT_EQ(a.size(), 0u);
    EXPECT_EQ(b.size(), 1u);
    EXPECT_EQ(a.advance(kOrigin + 100 * kMs), 0u);
    EXPECT_EQ(b.advance(kOrigin + 100 * kMs), 1u);
    EXPECT_EQ(fired, 1);
}

TEST(TimerWheel, RejectsBadOptions) {
    EXPECT_THROW(TimerWheel(kOrigin, TimerWheelOptions{kMs, 100}), std::invalid_argument);
    EXPECT_THROW(TimerWheel(kOrigin, TimerWheelOptions{kMs, 32}), std::invalid_argument);
    EXPECT_THROW(TimerWheel(kOrigin, TimerWheelOptions{0, 1024}), std::invalid_argument);
}

// Random schedule/cancel/reschedule against a model: each timer must fire exactly at the first step whose
// time reaches max(its deadline rounded up to a tick, the tick after the last advance when it was scheduled).
// Random schedule/cancel/advance against a model: what fires at each step, and next_wakeup() never later
// than the earliest pending deadline. Few timers leave most slots empty (long scans, a remembered floor).
void run_model(int count, std::uint64_t seed) {
    constexpr std::int64_t kStep = 3 * kMs;                   // not a multiple of the tick, so rounding is exercised
    TimerWheel wheel(kOrigin, TimerWheelOptions{kTick, 64});  // small wheel: many revolutions
    std::mt19937_64 rng(seed);
    std::vector<std::unique_ptr<Timer>> timers;
    std::vector<std::optional<base::MonoNanos>> expect_fire(count);  // model
    std::vector<int> fired_now;
    for (int i = 0; i < count; ++i)
        timers.push_back(std::make_unique<Timer>([&fired_now, i] { fired_now.push_back(i); }));
    base::MonoNanos now = kOrigin;
    base::MonoNanos next_boundary = kOrigin;  // the model's view of the first unprocessed tick
    for (int step = 0; step < 4000; ++step) {
        for (int op = 0; op < 5; ++op) {
            const int i = static_cast<int>(rng() % count);
            if (rng() % 4 == 0) {
                timers[static_cast<std::size_t>(i)]->cancel();
                expect_fire[static_cast<std::size_t>(i)].reset();
            } else {
                const std::int64_t delay = static_cast<std::int64_t>(rng() % 2000) * kMs - 50 * kMs;
                wheel.schedule(*timers[static_cast<std::size_t>(i)], now + delay);
                expect_fire[static_cast<std::size_t>(i)] = std::max(rounded(now + delay), next_boundary);
            }
        }
        now += kStep;
        fired_now.clear();
        wheel.advance(now);
        next_boundary = rounded(now + 1);
        std::vector<int> expected;
        for (int i = 0; i < count; ++i) {
            auto& e = expect_fire[static_cast<std::size_t>(i)];
            if (e && *e <= now) {
                expected.push_back(i);
                e.reset();
            }
        }
        std::sort(fired_now.begin(), fired_now.end());
        ASSERT_EQ(fired_now, expected) << "step " << step;
        std::optional<base::MonoNanos> earliest;
        for (const auto& e : expect_fire) {
            if (e && (!earliest || *e < *earliest)) earliest = *e;
        }
        ASSERT_EQ(wheel.next_wakeup().has_value(), earliest.has_value()) << "step " << step;
        if (earliest) {
            ASSERT_LE(*wheel.next_wakeup(), *earliest) << "step " << step;
            ASSERT_GT(*wheel.next_wakeup(), now) << "step " << step;
        }
    }
    std::size_t pending = 0;
    for (const auto& e : expect_fire)
        pending += e.has_value() ? 1 : 0;
    EXPECT_EQ(wheel.size(), pending);
}

TEST(TimerWheel, MatchesModelUnderRandomOperations) {
    const struct {
        int timers;
        std::uint64_t seed;
    } cases[] = {{300, 12345}, {4, 777}, {1, 99}};
    for (const auto& c : cases) {
        SCOPED_TRACE(c.timers);
        run_model(c.timers, c.seed);
        if (HasFatalFailure()) return;
    }
}

}  // namespace
}  // namespace slipstream::net
