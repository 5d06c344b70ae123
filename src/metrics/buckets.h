// Buckets: a histogram's fixed upper bounds, in integer units, and how they read in the exposition.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace slipstream::metrics {

/// Upper bounds (inclusive, as Prometheus `le`) in the integer unit that observe() takes: nanoseconds
/// for latencies, bytes for sizes. The exposition shows bound / unit_divisor as an exact decimal, so a
/// histogram fed nanoseconds reports seconds without any floating point on the hot path. The +Inf
/// bucket is implicit. Immutable after construction.
class Buckets {
  public:
    /// Nanoseconds in, seconds out.
    static constexpr std::uint64_t kNanosToSeconds = 1'000'000'000;
    static constexpr std::size_t kMaxBounds = 256;

    /// Throws std::invalid_argument unless bounds are non-empty, strictly increasing, at most
    /// kMaxBounds, and unit_divisor is a power of ten (1, 10, ..., 10^18).
    explicit Buckets(std::vector<std::uint64_t> upper_bounds, std::uint64_t unit_divisor = 1);

    /// Latency in nanoseconds, shown in seconds: 50us 100us 250us 500us 1ms 2.5ms 5ms 10ms 25ms 50ms
    /// 100ms 250ms 500ms 1s 2.5s 5s 10s.
    static Buckets latency();
    /// Sizes in bytes: 64 B, then powers of four up to 64 MiB (64, 256, 1 KiB, 4 KiB, ... 64 MiB).
    static Buckets bytes();
    /// count bounds start, start*factor, start*factor^2, ...; throws std::invalid_argument on factor < 2,
    /// start == 0 or overflow.
    static Buckets exponential(std::uint64_t start, std::uint64_t factor, std::size_t count,
                               std::uint64_t unit_divisor = 1);

    std::span<const std::uint64_t> bounds() const { return bounds_; }
    std::uint64_t unit_divisor() const { return unit_divisor_; }
    /// The `le` text of bucket i (i < bounds().size()), e.g. "0.00005"; "+Inf" for i == bounds().size().
    const std::string& le(std::size_t i) const { return le_[i]; }

    /// For each bit width w in [0, 64] of an observed value, the number of bounds below 2^(w-1) (0 for w 0);
    /// entry 65 is the bound count. A value of width w can only be below the bounds from entry w to
    /// entry w + 1, so the bucket search looks at those alone (one bound for the latency set).
    const std::array<std::uint16_t, 66>& by_width() const { return by_width_; }

  private:
    std::vector<std::uint64_t> bounds_;
    std::uint64_t unit_divisor_;
    std::vector<std::string> le_;
    std::array<std::uint16_t, 66> by_width_{};
};

}  // namespace slipstream::metrics
