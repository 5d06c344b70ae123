// Decision -> rate-limit header values.
#include "policy/ratelimit/decision.h"

namespace slipstream::policy::ratelimit {
namespace {

constexpr std::int64_t kNanosPerSecond = 1'000'000'000;

std::int64_t ceil_seconds(std::int64_t ns) {
    return ns <= 0 ? 0 : (ns - 1) / kNanosPerSecond + 1;
}

}  // namespace

HeaderValues header_values(const Decision& decision) {
    HeaderValues out;
    out.limit = decision.limit;
    out.remaining = decision.remaining;
    out.reset_s = ceil_seconds(decision.reset_ns);
    if (!decision.allowed) {
        const std::int64_t s = ceil_seconds(decision.retry_after_ns);
        out.retry_after_s = s < 1 ? 1 : s;
    }
    return out;
}

}  // namespace slipstream::policy::ratelimit
