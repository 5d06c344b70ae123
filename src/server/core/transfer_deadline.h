// transfer_deadline(): when a body being read or output waiting for a slow client has taken too long.
#pragma once

#include <cstdint>

#include "base/clock.h"

namespace slipstream::server {

/// The deadline of one transfer and which limit set it.
struct TransferDeadline {
    base::MonoNanos at = 0;
    bool by_rate = false;  // the minimum rate, not the inactivity timeout, is the nearer limit
};

/// A transfer that began at `start` and has moved `bytes` so far must (1) progress at least every `timeout_ms`
/// (measured from `now`, the last progress) and (2) average `min_rate` bytes per second once `timeout_ms` has
/// passed since `start`: each byte buys 1/min_rate s on top of that grace (Apache's mod_reqtimeout MinRate).
/// A trickle just inside the timeout meets (1) for ever but not (2). `min_rate` 0: (1) only. Pure; any thread.
inline TransferDeadline transfer_deadline(base::MonoNanos now, base::MonoNanos start, std::uint64_t bytes,
                                          std::uint32_t timeout_ms, std::uint32_t min_rate) {
    const std::int64_t timeout = std::int64_t{timeout_ms} * base::kNanosPerMilli;
    TransferDeadline d{now + timeout, false};
    if (min_rate == 0) return d;
    // bytes / min_rate seconds without overflow: whole seconds, then the remainder; past ~30 years, no limit.
    const std::uint64_t whole = bytes / min_rate;
    if (whole > (std::uint64_t{1} << 30)) return d;
    const std::int64_t earned = static_cast<std::int64_t>(whole) * base::kNanosPerSecond +
                                static_cast<std::int64_t>((bytes % min_rate) * std::uint64_t{1'000'000'000} / min_rate);
    const base::MonoNanos by_rate = start + timeout + earned;
    if (by_rate < d.at) d = {by_rate, true};
    return d;
}

}  // namespace slipstream::server
