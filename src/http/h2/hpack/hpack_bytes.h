// HPACK internals: short-string comparison and hashing without library calls (field names and values are short).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>

namespace slipstream::http::h2::detail {

inline std::uint64_t load8(const char* p) {
    std::uint64_t w;
    std::memcpy(&w, p, 8);
    return w;
}

/// The first `n` bytes at `p` (1-7 of them) as one word: two overlapping loads, or three bytes. Equal strings
/// of equal length give equal words.
inline std::uint64_t hpack_load_short(const char* p, std::size_t n) {
    if (n >= 4) {
        std::uint32_t a;
        std::uint32_t b;
        std::memcpy(&a, p, 4);
        std::memcpy(&b, p + n - 4, 4);
        return (static_cast<std::uint64_t>(a) << 32) | b;
    }
    auto byte = [p](std::size_t i) { return static_cast<std::uint64_t>(static_cast<unsigned char>(p[i])); };
    return byte(0) | (byte(n / 2) << 8) | (byte(n - 1) << 16);
}

/// `n` bytes at `a` equal those at `b`.
inline bool hpack_bytes_equal(const char* a, const char* b, std::size_t n) {
    if (n == 0) return true;
    if (n < 8) return hpack_load_short(a, n) == hpack_load_short(b, n);
    if (n <= 16) {
        return ((load8(a) ^ load8(b)) | (load8(a + n - 8) ^ load8(b + n - 8))) == 0;
    }
    return std::memcmp(a, b, n) == 0;
}

inline bool hpack_equal(std::string_view a, std::string_view b) {
    return a.size() == b.size() && hpack_bytes_equal(a.data(), b.data(), a.size());
}

/// A multiplicative hash: one or two word loads for strings up to 16 bytes, a word at a time beyond.
inline std::uint32_t hpack_hash(std::string_view s, std::uint64_t seed) {
    constexpr std::uint64_t kMul1 = 0x9E3779B97F4A7C15ull;
    constexpr std::uint64_t kMul2 = 0xC2B2AE3D27D4EB4Full;
    const char* p = s.data();
    std::size_t n = s.size();
    std::uint64_t h;
    if (n <= 8) {
        h = ((n == 8 ? load8(p) : n > 0 ? hpack_load_short(p, n) : 0) ^ seed ^ n) * kMul1;
    } else if (n <= 16) {
        h = ((load8(p) ^ seed) * kMul1) ^ ((load8(p + n - 8) + n) * kMul2);
    } else {
        h = (seed ^ n) * kMul1;
        for (; n > 8; p += 8, n -= 8)
            h = ((h ^ load8(p)) * kMul1) ^ (h >> 29);
        h = ((h ^ load8(p + n - 8)) * kMul2) ^ (h >> 29);  // the last 8 bytes (overlapping)
    }
    return static_cast<std::uint32_t>((h ^ (h >> 32)) * kMul2 >> 32);
}

}  // namespace slipstream::http::h2::detail
