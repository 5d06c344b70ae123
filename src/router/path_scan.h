// Inline byte helpers for the lookup path: short compares, '/' search and token hashing.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>

namespace slipstream::server::detail {

template <typename T>
inline T load_bytes(const char* p) {
    T v;
    std::memcpy(&v, p, sizeof(T));
    return v;
}

/// Equality of `n` bytes without a libc call: tokens are short, and a call costs more than the
/// compare. Tails use two overlapping loads instead of a byte loop.
inline bool bytes_equal(const char* a, const char* b, std::size_t n) {
    if (n >= 8) {
        for (std::size_t i = 0; i + 8 < n; i += 8) {
            if (load_bytes<std::uint64_t>(a + i) != load_bytes<std::uint64_t>(b + i)) return false;
        }
        return load_bytes<std::uint64_t>(a + n - 8) == load_bytes<std::uint64_t>(b + n - 8);
    }
    if (n >= 4) {
        return load_bytes<std::uint32_t>(a) == load_bytes<std::uint32_t>(b) &&
               load_bytes<std::uint32_t>(a + n - 4) == load_bytes<std::uint32_t>(b + n - 4);
    }
    if (n >= 2) {
        return load_bytes<std::uint16_t>(a) == load_bytes<std::uint16_t>(b) &&
               load_bytes<std::uint16_t>(a + n - 2) == load_bytes<std::uint16_t>(b + n - 2);
    }
    return n == 0 || *a == *b;
}

/// Offset of the first '/' in `s`, or s.size(); eight bytes at a time.
inline std::size_t find_slash(std::string_view s) {
    std::size_t i = 0;
    if constexpr (std::endian::native == std::endian::little) {
        constexpr std::uint64_t kOnes = 0x0101010101010101ull, kHighs = 0x8080808080808080ull;
        for (; i + 8 <= s.size(); i += 8) {
            std::uint64_t x = load_bytes<std::uint64_t>(s.data() + i) ^ (kOnes * '/');
            // The lowest set bit marks the first zero byte (the classic has-zero-byte test).
            std::uint64_t zero = (x - kOnes) & ~x & kHighs;
            if (zero != 0) return i + static_cast<std::size_t>(std::countr_zero(zero)) / 8;
        }
    }
    while (i < s.size() && s[i] != '/')
        ++i;
    return i;
}

/// Length of the token at the start of `rest` ("/seg", up to the next '/'); rest[0] is '/'.
inline std::size_t token_length(std::string_view rest) {
    return 1 + find_slash(rest.substr(1));
}

/// Hash of a token's first (up to) eight segment bytes, the table key of a literal edge. `rest`
/// starts with the token's '/'; the bytes after its end are never part of the key, so the key of a
/// label's first token and of an equal token in a path agree.
inline std::uint64_t token_key_hash(std::string_view rest) {
    const char* p = rest.data() + 1;
    std::size_t avail = rest.size() - 1;
    std::uint64_t w = 0;
    std::size_t k = 0;
    if (std::endian::native == std::endian::little && avail >= 8) {
        constexpr std::uint64_t kOnes = 0x0101010101010101ull, kHighs = 0x8080808080808080ull;
        w = load_bytes<std::uint64_t>(p);
        std::uint64_t x = w ^ (kOnes * '/');
        std::uint64_t zero = (x - kOnes) & ~x & kHighs;
        k = zero == 0 ? 8 : static_cast<std::size_t>(std::countr_zero(zero)) / 8;
        if (k < 8) w &= (std::uint64_t{1} << (8 * k)) - 1;
    } else {
        for (; k < avail && k < 8 && p[k] != '/'; ++k)
            w |= std::uint64_t{static_cast<unsigned char>(p[k])} << (8 * k);
    }
    w ^= (k + 1) * 0x9E3779B97F4A7C15ull;
    w *= 0xBF58476D1CE4E5B9ull;
    return w ^ (w >> 31);
}

/// Hash of a whole path (every byte counts), the key of StaticPathIndex: eight bytes per step, the last
/// (or only) step an overlapping load, so a short path costs a couple of loads and multiplies.
inline std::uint64_t path_hash(std::string_view path) {
    constexpr std::uint64_t kMul = 0x9E3779B97F4A7C15ull;
    const char* p = path.data();
    const std::size_t n = path.size();
    std::uint64_t h = n * kMul;
    auto mix = [&h](std::uint64_t w) { h = (h ^ w) * 0xBF58476D1CE4E5B9ull; };
    if (n >= 8) {
        for (std::size_t i = 0; i + 8 < n; i += 8)
            mix(load_bytes<std::uint64_t>(p + i));
        mix(load_bytes<std::uint64_t>(p + n - 8));
    } else if (n >= 4) {
        mix(load_bytes<std::uint32_t>(p) | std::uint64_t{load_bytes<std::uint32_t>(p + n - 4)} << 32);
    } else if (n > 0) {
        mix(static_cast<unsigned char>(p[0]) | static_cast<unsigned>(static_cast<unsigned char>(p[n / 2])) << 8 |
            static_cast<unsigned>(static_cast<unsigned char>(p[n - 1])) << 16);
    }
    return h ^ (h >> 31);
}

}  // namespace slipstream::server::detail
