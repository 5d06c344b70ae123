// Timer: an intrusive timer object scheduled on a TimerWheel (no allocation per schedule).
#pragma once

#include <cstdint>
#include <utility>

#include "base/clock.h"
#include "net/task.h"

namespace slipstream::net {

class TimerWheel;

namespace detail {
/// Intrusive doubly-linked list links; a wheel slot is a circular list around a sentinel node.
struct TimerNode {
    TimerNode* prev = nullptr;
    TimerNode* next = nullptr;
};
}  // namespace detail

/// A timer owned by its user (typically a member of a connection) and linked into a TimerWheel while
/// scheduled. Schedule, cancel and reschedule are O(1) and never allocate. The callback runs on the thread
/// that calls TimerWheel::advance() (the loop thread). The callback may reschedule, cancel or destroy this
/// timer and any other timer. Destroying a scheduled timer cancels it. Not thread-safe: use it on the
/// thread that owns its wheel. Not movable while it could be scheduled (it is not movable at all).
class Timer : private detail::TimerNode {
  public:
    Timer() = default;
    explicit Timer(Task callback) : callback_(std::move(callback)) {}
    Timer(const Timer&) = delete;
    Timer& operator=(const Timer&) = delete;
    ~Timer();

    /// Replaces the callback. Allowed while scheduled (takes effect at the next firing) but not from
    /// inside this timer's own callback.
    void set_callback(Task callback) { callback_ = std::move(callback); }

    bool scheduled() const { return wheel_ != nullptr; }
    /// The deadline of the last schedule (meaningful while scheduled).
    base::MonoNanos deadline() const { return deadline_; }

    /// Cancels the timer if scheduled; no-op otherwise.
    void cancel();

  private:
    friend class TimerWheel;

    base::MonoNanos deadline_ = 0;
    std::int64_t slot_tick_ = 0;  // the tick of the slot it is linked in; visited no later than that tick
    TimerWheel* wheel_ = nullptr;
    Task callback_;
};

}  // namespace slipstream::net
