// batch_decision(): GCRA's numbers for one request of a batch decided elsewhere.
#include "policy/ratelimit/batch_decision.h"

#include <algorithm>

namespace slipstream::policy::ratelimit {

namespace {

using U128 = unsigned __int128;

std::int64_t ceil_div(U128 a, std::uint64_t b) {
    return static_cast<std::int64_t>((a + b - 1) / b);
}

}  // namespace

Decision batch_decision(const Rate& rate, std::uint64_t burst, std::uint32_t allowed, std::int64_t tat_ahead_ns,
                        std::uint32_t rank) {
    const std::uint64_t num = rate.interval_num();
    const std::uint64_t den = rate.interval_den();
    const U128 window = U128(burst) * num;
    const U128 ahead = U128(static_cast<std::uint64_t>(std::max<std::int64_t>(tat_ahead_ns, 0))) * den;
    Decision d;
    d.limit = burst;
    if (rank < allowed) {
        // The bucket as it was right after this request: later requests of the batch moved it on by one interval each.
        const U128 back = U128(allowed - 1 - rank) * num;
        const U128 mine = ahead > back ? ahead - back : 0;
        d.allowed = true;
        d.remaining = window > mine ? static_cast<std::uint64_t>((window - mine) / num) : 0;
        d.reset_ns = ceil_div(mine, den);
        return d;
    }
    const U128 next = ahead + num;
    d.retry_after_ns = next > window ? std::max<std::int64_t>(ceil_div(next - window, den), 1) : 1;
    d.reset_ns = std::max<std::int64_t>(tat_ahead_ns, 0);
    return d;
}

}  // namespace slipstream::policy::ratelimit
