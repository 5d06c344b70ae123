// TimerWheel: slots of intrusive lists, a bitmap of non-empty slots, lazy postponement.
#include "net/timer_wheel.h"

#include <algorithm>
#include <limits>
#include <stdexcept>

#include "base/assert.h"

namespace slipstream::net {
namespace {

// slot_tick_ of a timer that sits in the list being fired: any new deadline is evaluated in place.
constexpr std::int64_t kProcessing = std::numeric_limits<std::int64_t>::min();

bool list_empty(const detail::TimerNode& sentinel) {
    return sentinel.next == &sentinel;
}

}  // namespace

Timer::~Timer() {
    cancel();
}

void Timer::cancel() {
    if (wheel_ != nullptr) wheel_->cancel(*this);
}

TimerWheel::TimerWheel(base::MonoNanos origin, TimerWheelOptions options)
    : origin_(origin), tick_(options.tick_nanos), mask_(options.slots - 1) {
    if (options.tick_nanos <= 0) throw std::invalid_argument("TimerWheel: tick_nanos must be positive");
    if (options.slots < 64 || (options.slots & (options.slots - 1)) != 0) {
        throw std::invalid_argument("TimerWheel: slots must be a power of two >= 64");
    }
    slots_ = std::make_unique<detail::TimerNode[]>(options.slots);
    for (std::size_t i = 0; i < options.slots; ++i)
        slots_[i].prev = slots_[i].next = &slots_[i];
    occupied_ = std::make_unique<std::uint64_t[]>(options.slots / 64);  // zeroed
    processing_.prev = processing_.next = &processing_;
}

TimerWheel::~TimerWheel() {
    for (std::size_t i = 0; i <= mask_; ++i) {
        detail::TimerNode* node = slots_[i].next;
        while (node != &slots_[i]) {
            detail::TimerNode* next = node->next;
            Timer* timer = static_cast<Timer*>(node);
            timer->prev = timer->next = nullptr;
            timer->wheel_ = nullptr;
            node = next;
        }
    }
}

std::int64_t TimerWheel::tick_ceil(base::MonoNanos t) const {
    if (t <= origin_) return 0;
    const std::int64_t d = t - origin_;  // no overflow for any deadline >= origin_
    return d / tick_ + (d % tick_ != 0 ? 1 : 0);
}

void TimerWheel::link(Timer& timer, std::int64_t tick) {
    tick = std::max(tick, cursor_);
    const std::size_t idx = static_cast<std::size_t>(tick) & mask_;
    detail::TimerNode& sentinel = slots_[idx];
    timer.prev = sentinel.prev;
    timer.next = &sentinel;
    sentinel.prev->next = &timer;
    sentinel.prev = &timer;
    occupied_[idx >> 6] |= std::uint64_t{1} << (idx & 63);
    timer.slot_tick_ = tick;
    // Where a scan from cursor_ meets this slot (a later revolution's tick shares an earlier slot).
    scan_floor_ =
        std::min(scan_floor_, cursor_ + static_cast<std::int64_t>(static_cast<std::size_t>(tick - cursor_) & mask_));
}

void TimerWheel::unlink(Timer& timer) {
    timer.prev->next = timer.next;
    timer.next->prev = timer.prev;
    timer.prev = timer.next = nullptr;
    if (timer.slot_tick_ != kProcessing) {
        const std::size_t idx = static_cast<std::size_t>(timer.slot_tick_) & mask_;
        if (list_empty(slots_[idx])) occupied_[idx >> 6] &= ~(std::uint64_t{1} << (idx & 63));
    }
}

void TimerWheel::schedule_slow(Timer& timer, base::MonoNanos deadline) {
    const std::int64_t tick = tick_ceil(deadline);
    if (timer.wheel_ == this) {
        // Earlier than before (schedule() handled later): moved now unless its slot still comes round in time.
        if (tick >= timer.slot_tick_) {
            timer.deadline_ = deadline;
            return;
        }
        unlink(timer);
        timer.deadline_ = deadline;
        link(timer, tick);
        return;
    }
    if (timer.wheel_ != nullptr) timer.wheel_->cancel(timer);
    timer.deadline_ = deadline;
    timer.wheel_ = this;
    ++count_;
    link(timer, tick);
}

void TimerWheel::cancel(Timer& timer) {
    if (timer.wheel_ != this) return;
    unlink(timer);
    timer.wheel_ = nullptr;
    --count_;
}

std::int64_t TimerWheel::next_nonempty_tick(std::int64_t from) const {
    // The slots of [from, scan_floor_) are empty (from == cursor_), so the first non-empty one in
    // [scan_floor_, scan_floor_ + revolution) is the first one from `from` as well.
    from = std::max(from, scan_floor_);
    const std::size_t words = (mask_ + 1) / 64;
    const std::size_t idx = static_cast<std::size_t>(from) & mask_;
    std::size_t w = idx >> 6;
    std::uint64_t word = occupied_[w] & (~std::uint64_t{0} << (idx & 63));
    // words + 1 reads: the first word is read again at the end for the bits below `idx`.
    for (std::size_t i = 0; i <= words; ++i) {
        if (word != 0) {
            const std::size_t found = (w << 6) + static_cast<std::size_t>(__builtin_ctzll(word));
            scan_floor_ = from + static_cast<std::int64_t>((found - idx) & mask_);
            return scan_floor_;
        }
        w = (w + 1 == words) ? 0 : w + 1;
        word = occupied_[w];
    }
    return std::numeric_limits<std::int64_t>::max();
}

std::int64_t TimerWheel::min_scheduled_tick() const {
    std::int64_t best = std::numeric_limits<std::int64_t>::max();
    for (std::size_t i = 0; i <= mask_; ++i) {
        for (const detail::TimerNode* n = slots_[i].next; n != &slots_[i]; n = n->next) {
            best = std::min(best, tick_ceil(static_cast<const Timer*>(n)->deadline_));
        }
    }
    return best;
}

std::size_t TimerWheel::process_slot(std::int64_t tick) {
    const std::size_t idx = static_cast<std::size_t>(tick) & mask_;
    detail::TimerNode& sentinel = slots_[idx];
    // Timers scheduled from callbacks must land after this tick, never in the slot being emptied.
    cursor_ = tick + 1;
    if (list_empty(sentinel)) return 0;
    // Splice the slot into processing_ so callbacks can cancel/destroy any timer still in it.
    processing_.next = sentinel.next;
    processing_.prev = sentinel.prev;
    processing_.next->prev = &processing_;
    processing_.prev->next = &processing_;
    sentinel.next = sentinel.prev = &sentinel;
    occupied_[idx >> 6] &= ~(std::uint64_t{1} << (idx & 63));
    for (detail::TimerNode* n = processing_.next; n != &processing_; n = n->next) {
        static_cast<Timer*>(n)->slot_tick_ = kProcessing;
    }

    std::size_t fired = 0;
    while (!list_empty(processing_)) {
        Timer& timer = *static_cast<Timer*>(processing_.next);
        unlink(timer);
        const std::int64_t due_tick = tick_ceil(timer.deadline_);
        if (due_tick > tick) {
            link(timer, due_tick);  // a later revolution, or postponed
            continue;
        }
        timer.wheel_ = nullptr;
        --count_;
        ++fired;
        if (timer.callback_) timer.callback_();  // may destroy `timer`: not touched afterwards
    }
    return fired;
}

std::size_t TimerWheel::advance(base::MonoNanos now) {
    SLIPSTREAM_ASSERT(!advancing_);
    if (now < origin_) return 0;
    const std::int64_t last = (now - origin_) / tick_;  // the last tick that has fully begun
    if (last < cursor_) return 0;
    advancing_ = true;
    std::size_t fired = 0;
    std::int64_t idle_since = cursor_;  // first tick of the current run of visits that fired nothing
    while (count_ > 0) {
        const std::int64_t tick = next_nonempty_tick(cursor_);
        if (tick > last) break;
        if (tick - idle_since >= static_cast<std::int64_t>(mask_ + 1)) {
            // A whole revolution visited and nothing was due: every timer now sits in the slot of its own
            // tick, so jump straight to the earliest one instead of circling (a long stall or a fake clock).
            const std::int64_t earliest = std::max(min_scheduled_tick(), cursor_);
            if (earliest > last) break;
            cursor_ = idle_since = earliest;
            continue;
        }
        const std::size_t n = process_slot(tick);
        fired += n;
        if (n != 0) idle_since = cursor_;
    }
    cursor_ = std::max(cursor_, last + 1);
    advancing_ = false;
    return fired;
}

std::optional<base::MonoNanos> TimerWheel::scan_wakeup() const {
    const std::int64_t tick = next_nonempty_tick(cursor_);
    if (tick == std::numeric_limits<std::int64_t>::max()) return std::nullopt;
    return origin_ + tick * tick_;
}

}  // namespace slipstream::net
