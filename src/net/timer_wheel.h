// TimerWheel: a hashed timing wheel for per-connection deadlines, O(1) schedule/cancel/reschedule.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>

#include "base/clock.h"
#include "net/timer.h"

namespace slipstream::net {

/// Options of a TimerWheel. The wheel covers `slots * tick` per revolution; longer deadlines are fine
/// (they stay in their slot until their revolution comes round).
struct TimerWheelOptions {
    std::int64_t tick_nanos = 4 * base::kNanosPerMilli;  // resolution: timers fire up to one tick late
    std::size_t slots = 1024;                            // power of two; 1024 x 4 ms = 4.1 s per revolution
};

/// A hashed timing wheel with absolute deadlines. Driven by advance(now) with a time the caller supplies
/// (the loop's cached now(), or a fake time in tests), so it never reads a clock and never sleeps.
///
/// Semantics: a timer fires in the first advance(now) where `now` has reached its deadline rounded up to
/// the next tick boundary: never early, at most one tick late. Timers fire in deadline order, except that
/// timers whose deadlines round to the same tick fire in the order they were linked into that tick.
/// A deadline already in the past fires at the next tick boundary.
///
/// Costs: schedule/cancel unlink and link an intrusive list node (O(1), no allocation). Postponing a
/// scheduled timer (the common "connection was active, push the idle deadline back") only stores the new
/// deadline: the timer is moved to its new slot when its old slot comes round. advance() visits only
/// non-empty slots (a bitmap finds them) and each timer once per revolution it waits.
///
/// Not thread-safe: one wheel belongs to one thread (the loop thread).
class TimerWheel {
  public:
    /// `origin` is the time of tick 0 (the loop passes its clock's now()).
    explicit TimerWheel(base::MonoNanos origin, TimerWheelOptions options = {});
    /// Unlinks any timers still scheduled (they become unscheduled, their callbacks never run).
    ~TimerWheel();
    TimerWheel(const TimerWheel&) = delete;
    TimerWheel& operator=(const TimerWheel&) = delete;

    /// Schedules `timer` to fire at `deadline`, or moves it there if it is already scheduled (on this
    /// wheel or another one). Allowed from timer callbacks.
    void schedule(Timer& timer, base::MonoNanos deadline) {
        // Postponing (the common case: a connection was active, its idle deadline moves back) or re-arming
        // with the same deadline. The slot the timer sits in is that of its old deadline's tick (or the
        // cursor's, for a past deadline), which comes round no later than the new tick; advance() re-links
        // it then. Only the deadline is stored. Inline: a connection does this once per request.
        if (timer.wheel_ == this && deadline >= timer.deadline_) {
            timer.deadline_ = deadline;
            return;
        }
        schedule_slow(timer, deadline);
    }
    /// Cancels `timer` if it is scheduled on this wheel; no-op otherwise.
    void cancel(Timer& timer);

    /// Fires every timer due at `now` (see the class comment). Returns how many fired. Calls with a
    /// `now` earlier than a previous call's fire nothing new. Not reentrant (do not call from a callback).
    std::size_t advance(base::MonoNanos now);

    /// The earliest time at which advance() may have something to do, or nullopt when nothing is
    /// scheduled. It is a tick boundary and may be earlier than the earliest deadline (a slot also holds
    /// timers of later revolutions and postponed timers); never later.
    std::optional<base::MonoNanos> next_wakeup() const {
        if (count_ == 0) return std::nullopt;
        // Asked every loop iteration; usually the slot found last time is still the first non-empty one (the
        // slots of [cursor_, scan_floor_) are empty, so an occupied scan_floor_ slot is within one revolution).
        if (scan_floor_ >= cursor_) {
            const std::size_t idx = static_cast<std::size_t>(scan_floor_) & mask_;
            if ((occupied_[idx >> 6] >> (idx & 63)) & 1) return origin_ + scan_floor_ * tick_;
        }
        return scan_wakeup();
    }

    /// Number of scheduled timers.
    std::size_t size() const { return count_; }
    std::int64_t tick_nanos() const { return tick_; }

  private:
    void schedule_slow(Timer& timer, base::MonoNanos deadline);
    std::optional<base::MonoNanos> scan_wakeup() const;
    std::int64_t tick_ceil(base::MonoNanos t) const;
    void link(Timer& timer, std::int64_t tick);
    void unlink(Timer& timer);
    /// The first tick >= from whose slot is non-empty (within one revolution); requires count_ > 0 and
    /// from == cursor_. Starts at scan_floor_ when that is later and remembers what it found.
    std::int64_t next_nonempty_tick(std::int64_t from) const;
    std::size_t process_slot(std::int64_t tick);
    std::int64_t min_scheduled_tick() const;

    base::MonoNanos origin_;
    std::int64_t tick_;
    std::size_t mask_;
    std::unique_ptr<detail::TimerNode[]> slots_;  // sentinels of circular lists
    std::unique_ptr<std::uint64_t[]> occupied_;   // bit per slot: list non-empty
    detail::TimerNode processing_;                // sentinel of the slot being fired
    std::int64_t cursor_ = 0;                     // first tick not yet processed
    // The slots of the ticks in [cursor_, scan_floor_) are empty: next_nonempty_tick() starts there (each
    // loop iteration asks next_wakeup(); most find the same slot). link() lowers it; emptying only helps.
    mutable std::int64_t scan_floor_ = 0;
    std::size_t count_ = 0;
    bool advancing_ = false;
};

}  // namespace slipstream::net
