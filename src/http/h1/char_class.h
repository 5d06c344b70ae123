// Byte classes of RFC 9110/9112/3986 as one 256-entry table, so scanners test a byte with one load.
#pragma once

#include <array>
#include <cstdint>
#include <cstring>
#include <string_view>

namespace slipstream::http::h1::detail {

inline constexpr std::uint8_t kTchar = 1 << 0;       // token: ALPHA DIGIT !#$%&'*+-.^_`|~
inline constexpr std::uint8_t kFieldChar = 1 << 1;   // field-value byte: VCHAR obs-text SP HTAB
inline constexpr std::uint8_t kTargetChar = 1 << 2;  // request-target: unreserved sub-delims : @ / ? %
inline constexpr std::uint8_t kHexDigit = 1 << 3;    // HEXDIG
inline constexpr std::uint8_t kHostChar = 1 << 4;    // Host / authority: unreserved sub-delims % : [ ]
inline constexpr std::uint8_t kQdtext = 1 << 5;      // quoted-string text: HTAB SP ! #-[ ]-~ obs-text
inline constexpr std::uint8_t kPathChar = 1 << 6;    // request-target bytes before the query: kTargetChar but '?'

constexpr bool is_alpha(unsigned c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}
constexpr bool is_digit(unsigned c) {
    return c >= '0' && c <= '9';
}

constexpr std::array<std::uint8_t, 256> make_char_class() {
    std::array<std::uint8_t, 256> t{};
    constexpr std::string_view kTokenPunct = "!#$%&'*+-.^_`|~";
    constexpr std::string_view kUnreservedPunct = "-._~";
    constexpr std::string_view kSubDelims = "!$&'()*+,;=";
    for (unsigned c = 0; c < 256; ++c) {
        std::uint8_t bits = 0;
        const bool alnum = is_alpha(c) || is_digit(c);
        const bool unreserved = alnum || kUnreservedPunct.find(char(c)) != std::string_view::npos;
        const bool sub_delim = kSubDelims.find(char(c)) != std::string_view::npos;
        if (alnum || kTokenPunct.find(char(c)) != std::string_view::npos) bits |= kTchar;
        if ((c >= 0x20 && c != 0x7f) || c == '\t') bits |= kFieldChar;
        if (unreserved || sub_delim || c == ':' || c == '@' || c == '/' || c == '?' || c == '%') bits |= kTargetChar;
        if ((bits & kTargetChar) && c != '?') bits |= kPathChar;
        if (is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')) bits |= kHexDigit;
        if (unreserved || sub_delim || c == '%' || c == ':' || c == '[' || c == ']') bits |= kHostChar;
        if (c == '\t' || c == ' ' || c == 0x21 || (c >= 0x23 && c <= 0x5b) || (c >= 0x5d && c <= 0x7e) || c >= 0x80)
            bits |= kQdtext;
        t[c] = bits;
    }
    return t;
}

inline constexpr std::array<std::uint8_t, 256> kCharClass = make_char_class();

inline bool has_class(char c, std::uint8_t mask) {
    return (kCharClass[static_cast<unsigned char>(c)] & mask) != 0;
}

/// First byte in [p, end) outside `mask` (or end). Unrolled: the hot loop of the parser.
inline const char* scan_class(const char* p, const char* end, std::uint8_t mask) {
    while (end - p >= 4) {
        if (!has_class(p[0], mask)) return p;
        if (!has_class(p[1], mask)) return p + 1;
        if (!has_class(p[2], mask)) return p + 2;
        if (!has_class(p[3], mask)) return p + 3;
        p += 4;
    }
    while (p < end && has_class(*p, mask))
        ++p;
    return p;
}

/// ASCII case-insensitive equality of `s` with a lowercase literal `lower` made of letters, digits and '-'.
/// Exact for token input: the only bytes that OR 0x20 onto a letter, digit or '-' are that byte's own cases.
/// Compares 8 bytes at a time (the field names it checks are 4 to 17 bytes long).
inline bool equals_lower(std::string_view s, std::string_view lower) {
    if (s.size() != lower.size()) return false;
    std::size_t i = 0;
    for (; i + 8 <= s.size(); i += 8) {
        std::uint64_t a;
        std::uint64_t b;
        std::memcpy(&a, s.data() + i, 8);
        std::memcpy(&b, lower.data() + i, 8);
        if ((a | 0x2020202020202020u) != b) return false;
    }
    if (i + 4 <= s.size()) {
        std::uint32_t a;
        std::uint32_t b;
        std::memcpy(&a, s.data() + i, 4);
        std::memcpy(&b, lower.data() + i, 4);
        if ((a | 0x20202020u) != b) return false;
        i += 4;
    }
    for (; i < s.size(); ++i) {
        if ((static_cast<unsigned char>(s[i]) | 0x20) != static_cast<unsigned char>(lower[i])) return false;
    }
    return true;
}

}  // namespace slipstream::http::h1::detail
