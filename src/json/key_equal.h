// key_equal(): byte equality of two short strings (member names) without a call to memcmp.
#pragma once

#include <cstdint>
#include <cstring>
#include <string_view>

namespace slipstream::json {

/// True when `a` and `b` hold the same bytes. Up to 16 bytes it compares with two overlapping loads
/// (never past either end), so keys — mostly short — are compared inline; longer strings use memcmp.
/// Lookups by member name run this for every candidate (properties, required, duplicate keys).
inline bool key_equal(std::string_view a, std::string_view b) {
    const std::size_t n = a.size();
    if (n != b.size()) return false;
    const char* x = a.data();
    const char* y = b.data();
    if (n >= 8) {
        if (n > 16) return std::memcmp(x, y, n) == 0;
        std::uint64_t x0, y0, x1, y1;
        std::memcpy(&x0, x, 8);
        std::memcpy(&y0, y, 8);
        std::memcpy(&x1, x + n - 8, 8);
        std::memcpy(&y1, y + n - 8, 8);
        return ((x0 ^ y0) | (x1 ^ y1)) == 0;
    }
    if (n >= 4) {
        std::uint32_t x0, y0, x1, y1;
        std::memcpy(&x0, x, 4);
        std::memcpy(&y0, y, 4);
        std::memcpy(&x1, x + n - 4, 4);
        std::memcpy(&y1, y + n - 4, 4);
        return ((x0 ^ y0) | (x1 ^ y1)) == 0;
    }
    for (std::size_t i = 0; i < n; ++i)
        if (x[i] != y[i]) return false;
    return true;
}

}  // namespace slipstream::json
