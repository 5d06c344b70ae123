// Decision: the outcome of one rate-limit check, and the numbers for its response headers.
#pragma once

#include <cstdint>

namespace slipstream::policy::ratelimit {

/// What RateLimiter::check() decided for one request. Durations are nanoseconds, rounded up.
struct Decision {
    /// True: serve the request. False: answer 429 with Retry-After.
    bool allowed = false;
    /// The bucket's capacity (the burst): the most requests a full bucket allows at once.
    std::uint64_t limit = 0;
    /// Requests the bucket would allow right now, after this one; 0 when refused.
    std::uint64_t remaining = 0;
    /// When refused: the wait until one request will be allowed again (> 0). 0 when allowed.
    std::int64_t retry_after_ns = 0;
    /// The wait until the bucket is full again, so that `limit` requests would be allowed at once.
    std::int64_t reset_ns = 0;
};

/// The values of the rate-limit response headers, in whole seconds.
struct HeaderValues {
    std::uint64_t limit = 0;         ///< `RateLimit-Limit`
    std::uint64_t remaining = 0;     ///< `RateLimit-Remaining`
    std::int64_t reset_s = 0;        ///< `RateLimit-Reset`: reset_ns rounded up
    std::int64_t retry_after_s = 0;  ///< `Retry-After`: retry_after_ns rounded up, at least 1; 0 when allowed
};

/// The header values for `decision`. Pure; any thread. Send `Retry-After` only when !decision.allowed.
HeaderValues header_values(const Decision& decision);

}  // namespace slipstream::policy::ratelimit
