// Clocks: monotonic time for deadlines, wall time for logs; a manual clock for tests.
#pragma once

#include <atomic>
#include <cstdint>

namespace slipstream::base {

/// Nanoseconds on the monotonic clock (CLOCK_MONOTONIC). Never goes back.
using MonoNanos = std::int64_t;

/// A time source. Implementations are thread-safe.
class Clock {
  public:
    virtual ~Clock() = default;
    /// Monotonic nanoseconds, for deadlines and durations.
    virtual MonoNanos now() const = 0;
    /// Nanoseconds since the Unix epoch, for logs and the Date header.
    virtual std::int64_t wall_now() const = 0;
};

/// The real clocks of the system.
class SystemClock final : public Clock {
  public:
    MonoNanos now() const override;
    std::int64_t wall_now() const override;
};

/// A clock that moves only when told to: for tests where time matters.
class ManualClock final : public Clock {
  public:
    explicit ManualClock(MonoNanos start = 1'000'000'000) : mono_(start), wall_(1'700'000'000'000'000'000) {}
    MonoNanos now() const override { return mono_.load(std::memory_order_relaxed); }
    std::int64_t wall_now() const override { return wall_.load(std::memory_order_relaxed); }
    void advance(std::int64_t nanos) {
        mono_.fetch_add(nanos, std::memory_order_relaxed);
        wall_.fetch_add(nanos, std::memory_order_relaxed);
    }

  private:
    std::atomic<MonoNanos> mono_;
    std::atomic<std::int64_t> wall_;
};

/// Reads CLOCK_MONOTONIC directly (for code that has no Clock, such as metrics timing).
MonoNanos mono_now();

constexpr std::int64_t kNanosPerMilli = 1'000'000;
constexpr std::int64_t kNanosPerSecond = 1'000'000'000;

}  // namespace slipstream::base
