// DateCache: the Date header value (IMF-fixdate), formatted at most once per second of the caller's clock.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace slipstream::http::h1 {

/// Length of an IMF-fixdate: "Sun, 06 Nov 1994 08:49:37 GMT".
inline constexpr std::size_t kImfFixdateSize = 29;

/// Formats `unix_seconds` as an IMF-fixdate (RFC 9110 §5.6.7) into `out`; returns the view of it.
/// Times before 1970 or after 9999-12-31T23:59:59 are clamped to those bounds.
std::string_view format_imf_fixdate(std::int64_t unix_seconds, char (&out)[kImfFixdateSize]);

/// One per I/O thread (not thread-safe). The caller owns the clock and passes the wall time in.
class DateCache {
  public:
    /// The Date value for `wall_nanos` (nanoseconds since the Unix epoch, as base::Clock::wall_now()).
    /// Reformats only when the second changed; the view stays valid until a call with another second.
    std::string_view get(std::int64_t wall_nanos);

    /// How many times the text was formatted (for tests and metrics).
    std::uint64_t format_count() const { return formats_; }

  private:
    std::int64_t second_ = INT64_MIN;
    std::uint64_t formats_ = 0;
    char text_[kImfFixdateSize] = {};
};

}  // namespace slipstream::http::h1
