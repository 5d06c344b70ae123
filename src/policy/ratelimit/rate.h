// Rate: a request count per period ("100/s", "6000/min", "10/5s"), its strict parser and its GCRA interval.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "base/result.h"

namespace slipstream::policy::ratelimit {

/// Largest count a rate may have (and largest burst a limiter may have).
inline constexpr std::uint64_t kMaxRateCount = 1'000'000'000;
/// Shortest period: one millisecond. Every period is a whole number of milliseconds.
inline constexpr std::int64_t kMinRatePeriodNs = 1'000'000;
/// Longest period: 365 days.
inline constexpr std::int64_t kMaxRatePeriodNs = 365LL * 86'400 * 1'000'000'000;

/// `count` requests per `period`. A value type: cheap to copy, immutable, always valid (the only
/// ways to get one are make() and parse(), which check every bound). Any thread may read it.
///
/// Text form, strict (no spaces, no signs, no leading zeros, lowercase units):
///   <count>/<period>   count 1..1000000000
///   <period> = [<n>]<unit>, n >= 1, unit one of ms, s, m, min, h, d; n x unit <= 365 days
/// so "100/s", "6000/m", "6000/min", "100000/h", "1000000/d", "10/5s", "50/100ms".
class Rate {
  public:
    /// `count` per `period_ns`. Errors (kInvalidArgument, message "invalid rate: ..."): a count of 0 or
    /// above kMaxRateCount; a period not a whole number of milliseconds or outside [1 ms, 365 days].
    static base::Result<Rate> make(std::uint64_t count, std::int64_t period_ns);

    /// Parses the text form above. Never throws. Errors are kInvalidArgument with a precise message:
    /// `invalid rate "100/x": unknown period unit "x" (expected ms, s, m, min, h or d)`.
    static base::Result<Rate> parse(std::string_view text);

    /// parse() for the control plane (configuration, startup): throws std::invalid_argument with
    /// parse()'s message on an invalid text.
    static Rate parse_or_throw(std::string_view text);

    std::uint64_t count() const { return count_; }
    std::int64_t period_ns() const { return period_ns_; }

    /// The emission interval period / count, in lowest terms: interval_num() / interval_den() ns.
    /// interval_den() is 1 whenever the count divides the period in nanoseconds ("100/s": 10 ms).
    std::uint64_t interval_num() const { return interval_num_; }
    std::uint64_t interval_den() const { return interval_den_; }

    /// The canonical text form, which parse() reads back to an equal Rate: the largest unit that
    /// divides the period ("6000/m" -> "6000/min", "10/60s" -> "10/min", "1/90s" -> "1/90s").
    std::string to_string() const;

    bool operator==(const Rate& other) const { return count_ == other.count_ && period_ns_ == other.period_ns_; }

  private:
    Rate(std::uint64_t count, std::int64_t period_ns);

    std::uint64_t count_;
    std::int64_t period_ns_;
    std::uint64_t interval_num_;
    std::uint64_t interval_den_;
};

}  // namespace slipstream::policy::ratelimit
