// copy_lowercase, has_uppercase: HTTP/2 field names go on the wire lowercase; names are lowered while copied.
#pragma once

#include <cstdint>
#include <cstring>
#include <string_view>

namespace slipstream::http::h2::detail {

// The high bit of each byte of `x` that is 'A'..'Z' (its low seven bits reach 'A' and not past 'Z', and its
// high bit is clear); the other bits clear.
inline std::uint64_t uppercase_bytes(std::uint64_t x) {
    constexpr std::uint64_t kOnes = 0x0101010101010101u;
    constexpr std::uint64_t kHigh = 0x8080808080808080u;
    const std::uint64_t low7 = x & ~kHigh;
    const std::uint64_t from_a = low7 + kOnes * (0x80 - 'A');
    const std::uint64_t past_z = low7 + kOnes * (0x80 - 'Z' - 1);
    return from_a & ~past_z & ~x & kHigh;
}

// `x` with its ASCII uppercase letters lowered, eight bytes at once: a byte gets 0x20 added when it is 'A'..'Z'.
inline std::uint64_t lower_word(std::uint64_t x) {
    return x | (uppercase_bytes(x) >> 2);
}

// True when `name` holds an ASCII uppercase letter (a name to lower before it is used). A word at a time:
// names of 4 to 8 bytes in one test of two overlapping 4-byte loads, longer ones 8 bytes at a time.
inline bool has_uppercase(std::string_view name) {
    const std::size_t n = name.size();
    const char* p = name.data();
    auto upper = [](std::uint64_t w) { return uppercase_bytes(w) != 0; };
    if (n >= 8) {
        auto word = [p](std::size_t at) {
            std::uint64_t w;
            std::memcpy(&w, p + at, 8);
            return w;
        };
        for (std::size_t i = 0; i + 8 < n; i += 8)
            if (upper(word(i))) return true;
        return upper(word(n - 8));
    }
    if (n >= 4) {
        std::uint32_t lo, hi;
        std::memcpy(&lo, p, 4);
        std::memcpy(&hi, p + n - 4, 4);
        return upper(std::uint64_t{hi} << 32 | lo);
    }
    for (char c : name)
        if (c >= 'A' && c <= 'Z') return true;
    return false;
}

// Copies `name` to `out` with ASCII uppercase letters lowered. Returns the end. Names of eight bytes or more
// go a word at a time, the last word overlapping the one before.
inline char* copy_lowercase(char* out, std::string_view name) {
    const std::size_t n = name.size();
    if (n < 8) {
        for (char c : name)
            *out++ = c >= 'A' && c <= 'Z' ? static_cast<char>(c + 32) : c;
        return out;
    }
    auto lower_at = [&](std::size_t at) {
        std::uint64_t w;
        std::memcpy(&w, name.data() + at, 8);
        w = lower_word(w);
        std::memcpy(out + at, &w, 8);
    };
    for (std::size_t i = 0; i + 8 < n; i += 8)
        lower_at(i);
    lower_at(n - 8);
    return out + n;
}

}  // namespace slipstream::http::h2::detail
