// batch_decision(): one request's Decision from a shared bucket store's answer to a batch of a key's requests.
#pragma once

#include <cstdint>

#include "policy/ratelimit/decision.h"
#include "policy/ratelimit/rate.h"

namespace slipstream::policy::ratelimit {

/// A store counted a key's requests together and allowed the first `allowed` of them, leaving its theoretical
/// arrival time `tat_ahead_ns` (rounded up) past its clock. The request at `rank` (0-based, arrival order) of that
/// batch: allowed when rank < allowed, with what remained right after it; else refused with the wait until one more
/// would pass (at least 1 ns). Pure; any thread.
Decision batch_decision(const Rate& rate, std::uint64_t burst, std::uint32_t allowed, std::int64_t tat_ahead_ns,
                        std::uint32_t rank);

}  // namespace slipstream::policy::ratelimit
