// System clock readings.
#include "base/clock.h"

#include <time.h>

namespace slipstream::base {
namespace {
std::int64_t read(clockid_t id) {
    timespec ts;
    clock_gettime(id, &ts);
    return static_cast<std::int64_t>(ts.tv_sec) * kNanosPerSecond + ts.tv_nsec;
}
}  // namespace

MonoNanos mono_now() {
    return read(CLOCK_MONOTONIC);
}
MonoNanos SystemClock::now() const {
    return read(CLOCK_MONOTONIC);
}
std::int64_t SystemClock::wall_now() const {
    return read(CLOCK_REALTIME);
}

}  // namespace slipstream::base
