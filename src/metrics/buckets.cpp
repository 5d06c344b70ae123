// Bucket bound validation and the default latency and size bucket sets.
#include "metrics/buckets.h"

#include <limits>
#include <stdexcept>
#include <utility>

#include "metrics/text_format.h"

namespace slipstream::metrics {
namespace {

bool is_power_of_ten(std::uint64_t v) {
    if (v == 0) return false;
    while (v % 10 == 0)
        v /= 10;
    return v == 1;
}

[[noreturn]] void fail(const std::string& msg) {
    throw std::invalid_argument("metrics: buckets: " + msg);
}

}  // namespace

Buckets::Buckets(std::vector<std::uint64_t> upper_bounds, std::uint64_t unit_divisor)
    : bounds_(std::move(upper_bounds)), unit_divisor_(unit_divisor) {
    if (bounds_.empty()) fail("no upper bounds (the +Inf bucket is implicit; give at least one bound)");
    if (bounds_.size() > kMaxBounds) {
        fail(std::to_string(bounds_.size()) + " bounds, at most " + std::to_string(kMaxBounds));
    }
    if (!is_power_of_ten(unit_divisor_)) {
        fail("unit divisor " + std::to_string(unit_divisor_) + " is not a power of ten");
    }
    for (std::size_t i = 1; i < bounds_.size(); ++i) {
        if (bounds_[i] <= bounds_[i - 1]) {
            fail("bounds must increase strictly: bound " + std::to_string(i) + " (" + std::to_string(bounds_[i]) +
                 ") <= bound " + std::to_string(i - 1) + " (" + std::to_string(bounds_[i - 1]) + ")");
        }
    }
    le_.reserve(bounds_.size() + 1);
    for (std::uint64_t b : bounds_) {
        std::string s;
        detail::append_scaled(s, b, unit_divisor_);
        le_.push_back(std::move(s));
    }
    le_.emplace_back("+Inf");
    for (std::size_t w = 1; w <= 64; ++w) {
        const std::uint64_t lowest = std::uint64_t{1} << (w - 1);  // smallest value of bit width w
        std::size_t below = 0;
        while (below < bounds_.size() && bounds_[below] < lowest)
            ++below;
        by_width_[w] = static_cast<std::uint16_t>(below);
    }
    by_width_[65] = static_cast<std::uint16_t>(bounds_.size());
}

Buckets Buckets::latency() {
    constexpr std::uint64_t kUs = 1'000;
    constexpr std::uint64_t kMs = 1'000'000;
    constexpr std::uint64_t kS = 1'000'000'000;
    return Buckets({50 * kUs, 100 * kUs, 250 * kUs, 500 * kUs, 1 * kMs, 2500 * kUs, 5 * kMs, 10 * kMs, 25 * kMs,
                    50 * kMs, 100 * kMs, 250 * kMs, 500 * kMs, 1 * kS, 2500 * kMs, 5 * kS, 10 * kS},
                   kNanosToSeconds);
}

Buckets Buckets::bytes() {
    return exponential(64, 4, 11);
}

Buckets Buckets::exponential(std::uint64_t start, std::uint64_t factor, std::size_t count, std::uint64_t unit_divisor) {
    if (start == 0) fail("exponential start must be > 0");
    if (factor < 2) fail("exponential factor must be >= 2, got " + std::to_string(factor));
    if (count == 0 || count > kMaxBounds) {
        fail("exponential count must be in [1, " + std::to_string(kMaxBounds) + "], got " + std::to_string(count));
    }
    std::vector<std::uint64_t> bounds;
    bounds.reserve(count);
    std::uint64_t b = start;
    for (std::size_t i = 0; i < count; ++i) {
        bounds.push_back(b);
        if (i + 1 < count && b > std::numeric_limits<std::uint64_t>::max() / factor) {
            fail("exponential bound " + std::to_string(i + 1) + " overflows 64 bits");
        }
        b *= factor;
    }
    return Buckets(std::move(bounds), unit_divisor);
}

}  // namespace slipstream::metrics
