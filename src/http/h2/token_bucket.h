// TokenBucket: a burst allowance refilled at a steady rate; how the HTTP/2 flood defences count abuse.
#pragma once

#include <cstdint>

#include "base/clock.h"

namespace slipstream::http::h2 {

/// Starts full with `burst` tokens and gains `per_second` tokens a second up to `burst`. Time comes from
/// the caller (the loop's clock), so tests drive it. Not thread-safe (one per connection).
class TokenBucket {
  public:
    TokenBucket(std::uint32_t burst, std::uint32_t per_second)
        : burst_(burst), per_second_(per_second), tokens_(static_cast<double>(burst)) {}

    /// Takes one token; false when the bucket is empty (the caller treats it as a flood).
    bool take(base::MonoNanos now) {
        if (last_ != 0 && now > last_) {
            double gained = static_cast<double>(now - last_) * per_second_ / 1e9;
            tokens_ = tokens_ + gained > burst_ ? burst_ : tokens_ + gained;
        }
        last_ = now;
        if (tokens_ < 1.0) return false;
        tokens_ -= 1.0;
        return true;
    }

  private:
    double burst_;
    double per_second_;
    double tokens_;
    base::MonoNanos last_ = 0;
};

}  // namespace slipstream::http::h2
