// The generic cell rate algorithm (GCRA) in exact integer arithmetic: one step per request.
#pragma once

#include <algorithm>
#include <cstdint>

#include "policy/ratelimit/decision.h"
#include "policy/ratelimit/rate.h"

namespace slipstream::policy::ratelimit::detail {

using U128 = unsigned __int128;

/// One limit in GCRA units. Time is counted in 1/den ns, so that the emission interval
/// t = period / count is a whole number of units and every step is exact.
struct GcraLimit {
    std::uint64_t den = 1;    // units per nanosecond
    std::uint64_t t = 1;      // emission interval, in units
    std::uint64_t burst = 1;  // bucket capacity, >= 1
    U128 window = 1;          // burst * t: how far past now the theoretical arrival time may run

    static GcraLimit make(const Rate& rate, std::uint64_t burst) {
        GcraLimit g;
        g.den = rate.interval_den();
        g.t = rate.interval_num();
        g.burst = burst;
        g.window = U128(burst) * g.t;
        return g;
    }
};

/// A key's state: its theoretical arrival time (TAT) is exactly tat_ns - under / den ns, with
/// 0 <= under < den, so tat_ns is the TAT rounded up and "the bucket is full" is tat_ns <= now.
/// A fresh key is {now, 0}. Reading a state with a limit of another den (a key whose rate changed)
/// clamps under below den: the TAT moves by under 1 ns.
struct GcraState {
    std::int64_t tat_ns = 0;
    std::uint32_t under = 0;
};

// a / b rounded down; the callers' quotients fit in 64 bits. b is most often 1 (a whole interval in
// ns), and the operands most often fit in 64 bits: one hardware division, not the 128-bit library call.
inline std::uint64_t div_floor(U128 a, std::uint64_t b) {
    if (b == 1) return static_cast<std::uint64_t>(a);
    if ((a >> 64) == 0) return static_cast<std::uint64_t>(a) / b;
    return static_cast<std::uint64_t>(a / b);
}

inline std::uint64_t div_ceil(U128 a, std::uint64_t b) {
    if (b == 1) return static_cast<std::uint64_t>(a);
    const std::uint64_t q = div_floor(a, b);
    return q + (U128(q) * b != a ? 1 : 0);
}

/// Applies one request arriving at now_ns (>= 0) to `state`, which changes only when the request is
/// allowed. A request is allowed when, after it, the TAT runs at most `window` past now: so a full
/// bucket allows `burst` requests at once and then one per interval, exactly. Time going backwards
/// (callers on several threads) is safe: an earlier now only makes the check stricter for this state.
// The TAT never runs more than window (<= 100 years) past a now below 2^62, so tat_ns fits in 64 bits.
inline Decision gcra_check(const GcraLimit& limit, GcraState& state, std::int64_t now_ns) {
    const std::uint64_t den = limit.den;
    const U128 now = U128(static_cast<std::uint64_t>(now_ns)) * den;
    const U128 tat =
        U128(static_cast<std::uint64_t>(state.tat_ns)) * den - std::min<std::uint64_t>(state.under, den - 1);
    const U128 from = tat > now ? tat : now;
    const U128 next = from + limit.t;

    Decision d;
    d.limit = limit.burst;
    if (next > now + limit.window) {
        // Refused: next - window is when this request would have been allowed; from == tat > now.
        d.retry_after_ns = static_cast<std::int64_t>(div_ceil(next - limit.window - now, den));
        d.reset_ns = static_cast<std::int64_t>(div_ceil(from - now, den));
        return d;
    }
    d.allowed = true;
    d.remaining = div_floor(now + limit.window - next, limit.t);
    d.reset_ns = static_cast<std::int64_t>(div_ceil(next - now, den));
    const std::uint64_t tat_ns = div_ceil(next, den);
    state.tat_ns = static_cast<std::int64_t>(tat_ns);
    state.under = static_cast<std::uint32_t>(U128(tat_ns) * den - next);
    return d;
}

}  // namespace slipstream::policy::ratelimit::detail
