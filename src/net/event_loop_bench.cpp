// Micro-benchmarks: post()+wake round trip, loop iteration cost, timer schedule/cancel, socket wrappers.
#include <benchmark/benchmark.h>
#include <sys/socket.h>

#include <atomic>
#include <memory>
#include <thread>
#include <vector>

#include "net/event_loop.h"
#include "net/fd.h"
#include "net/socket.h"
#include "net/timer_wheel.h"

namespace slipstream::net {
namespace {

constexpr std::int64_t kMs = base::kNanosPerMilli;

// post() and run the task on the same thread: queue + lock cost, no wake-up (the loop is not sleeping).
void BM_PostRunSameThread(benchmark::State& state) {
    base::SystemClock clock;
    EventLoop loop(clock);
    std::uint64_t n = 0;
    for (auto _ : state) {
        loop.post([&n] { ++n; });
        loop.run_once(0);
    }
    benchmark::DoNotOptimize(n);
}
BENCHMARK(BM_PostRunSameThread);

// One empty iteration: epoll_wait(timeout 0) + one clock read + empty queues.
void BM_RunOnceIdle(benchmark::State& state) {
    base::SystemClock clock;
    EventLoop loop(clock);
    for (auto _ : state)
        benchmark::DoNotOptimize(loop.run_once(0));
}
BENCHMARK(BM_RunOnceIdle);

// Round trip to a sleeping loop on another thread: post -> eventfd write -> epoll wake -> task -> ack.
void BM_PostWakeRoundTrip(benchmark::State& state) {
    base::SystemClock clock;
    EventLoop loop(clock);
    std::thread runner([&] { loop.run(); });
    std::atomic<std::uint64_t> done{0};
    std::uint64_t sent = 0;
    for (auto _ : state) {
        ++sent;
        loop.post([&done] { done.fetch_add(1, std::memory_order_release); });
        while (done.load(std::memory_order_acquire) != sent) {
        }
    }
    state.counters["wake_writes_per_post"] =
        static_cast<double>(loop.wake_writes()) / static_cast<double>(sent == 0 ? 1 : sent);
    loop.stop();
    runner.join();
}
BENCHMARK(BM_PostWakeRoundTrip)->UseRealTime();

// Throughput of a producer posting to a busy loop: wake-ups coalesce (see wake_writes_per_post).
void BM_PostThroughput(benchmark::State& state) {
    base::SystemClock clock;
    EventLoop loop(clock);
    std::thread runner([&] { loop.run(); });
    std::atomic<std::uint64_t> done{0};
    std::uint64_t sent = 0;
    for (auto _ : state) {
        ++sent;
        loop.post([&done] { done.fetch_add(1, std::memory_order_relaxed); });
    }
    while (done.load(std::memory_order_relaxed) != sent) {
    }
    state.counters["wake_writes_per_post"] =
        static_cast<double>(loop.wake_writes()) / static_cast<double>(sent == 0 ? 1 : sent);
    state.SetItemsProcessed(static_cast<std::int64_t>(sent));
    loop.stop();
    runner.join();
}
BENCHMARK(BM_PostThroughput)->UseRealTime();

// A wheel holding `range(0)` other timers spread over 30 s, like per-connection deadlines.
struct LoadedWheel {
    TimerWheel wheel{0};
    std::vector<std::unique_ptr<Timer>> others;
    explicit LoadedWheel(std::int64_t count) {
        for (std::int64_t i = 0; i < count; ++i) {
            others.push_back(std::make_unique<Timer>());
            wheel.schedule(*others.back(), 1'000 * kMs + (i * 7919 % 30'000) * kMs);
        }
    }
};

void BM_TimerScheduleCancel(benchmark::State& state) {
    LoadedWheel w(state.range(0));
    Timer t;
    std::int64_t d = 0;
    for (auto _ : state) {
        w.wheel.schedule(t, 10'000 * kMs + (d++ & 1023) * kMs);
        w.wheel.cancel(t);
    }
}
BENCHMARK(BM_TimerScheduleCancel)->Arg(0)->Arg(10'000);

// The keep-alive pattern: push a scheduled deadline later (stores the deadline only).
void BM_TimerPostpone(benchmark::State& state) {
    LoadedWheel w(state.range(0));
    Timer t;
    base::MonoNanos deadline = 30'000 * kMs;
    w.wheel.schedule(t, deadline);
    for (auto _ : state)
        w.wheel.schedule(t, ++deadline);
}
BENCHMARK(BM_TimerPostpone)->Arg(10'000);

// Reschedule to an earlier tick: unlink + link.
void BM_TimerRescheduleEarlier(benchmark::State& state) {
    LoadedWheel w(state.range(0));
    Timer t;
    std::int64_t i = 0;
    for (auto _ : state)
        w.wheel.schedule(t, 20'000 * kMs - (i++ % 4096) * kMs);
}
BENCHMARK(BM_TimerRescheduleEarlier)->Arg(10'000);

// advance() by one tick with no timer due, and the next_wakeup() the loop computes before sleeping.
void BM_TimerAdvanceTickNothingDue(benchmark::State& state) {
    LoadedWheel w(state.range(0));
    base::MonoNanos now = 0;
    for (auto _ : state) {
        now += 1;  // inside the first second nothing is due; most calls stay within one tick
        benchmark::DoNotOptimize(w.wheel.advance(now));
        benchmark::DoNotOptimize(w.wheel.next_wakeup());
    }
}
BENCHMARK(BM_TimerAdvanceTickNothingDue)->Arg(10'000);

struct Pair {
    Fd a, b;
    Pair() {
        int fds[2];
        if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, fds) == 0) {
            a.reset(fds[0]);
            b.reset(fds[1]);
        }
    }
};

// The "would block" path of read_some (EAGAIN syscall + Result<size_t> with an empty Status).
void BM_ReadWouldBlock(benchmark::State& state) {
    Pair p;
    char buf[256];
    for (auto _ : state)
        benchmark::DoNotOptimize(would_block(read_some(p.a.get(), buf)));
}
BENCHMARK(BM_ReadWouldBlock);

// The syscall floor: 64 bytes written and read back over a socketpair.
void BM_WriteReadSocketpair(benchmark::State& state) {
    Pair p;
    char buf[256];
    const std::string msg(64, 'x');
    for (auto _ : state) {
        benchmark::DoNotOptimize(write_some(p.a.get(), msg).is_ok());
        benchmark::DoNotOptimize(read_some(p.b.get(), buf).is_ok());
    }
}
BENCHMARK(BM_WriteReadSocketpair);

}  // namespace
}  // namespace slipstream::net

BENCHMARK_MAIN();
