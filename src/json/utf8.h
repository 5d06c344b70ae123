// UTF-8 helpers shared by the parsers and the writer: validation, encoding, decoding.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace slipstream::json::detail {

/// Offset of the first byte that does not belong to well-formed UTF-8 (RFC 3629: no overlong forms, no
/// surrogates, nothing above U+10FFFF, no truncated sequence); text.size() when all of it is valid.
std::size_t find_invalid_utf8(std::string_view text);

/// Length (1..4) of the well-formed UTF-8 sequence starting at text[i], or 0 when the bytes there are not one.
std::size_t utf8_sequence_length(std::string_view text, std::size_t i);

/// Number of code points in `text` (counts lead bytes; meant for valid UTF-8).
std::size_t count_code_points(std::string_view text);

/// Writes `cp` (at most U+10FFFF, not a surrogate) as UTF-8 to `out`; returns the bytes written (1..4).
inline std::size_t encode_utf8(std::uint32_t cp, char* out) {
    if (cp < 0x80) {
        out[0] = static_cast<char>(cp);
        return 1;
    }
    if (cp < 0x800) {
        out[0] = static_cast<char>(0xC0 | (cp >> 6));
        out[1] = static_cast<char>(0x80 | (cp & 0x3F));
        return 2;
    }
    if (cp < 0x10000) {
        out[0] = static_cast<char>(0xE0 | (cp >> 12));
        out[1] = static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
        out[2] = static_cast<char>(0x80 | (cp & 0x3F));
        return 3;
    }
    out[0] = static_cast<char>(0xF0 | (cp >> 18));
    out[1] = static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out[2] = static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out[3] = static_cast<char>(0x80 | (cp & 0x3F));
    return 4;
}

/// Decodes the sequence starting at s[i] (s must be valid UTF-8 there); stores its length in `*len`.
inline std::uint32_t decode_utf8(std::string_view s, std::size_t i, std::size_t* len) {
    const auto b = [&](std::size_t k) { return static_cast<std::uint32_t>(static_cast<unsigned char>(s[i + k])); };
    const std::uint32_t c = b(0);
    if (c < 0x80) {
        *len = 1;
        return c;
    }
    if (c < 0xE0) {
        *len = 2;
        return ((c & 0x1F) << 6) | (b(1) & 0x3F);
    }
    if (c < 0xF0) {
        *len = 3;
        return ((c & 0x0F) << 12) | ((b(1) & 0x3F) << 6) | (b(2) & 0x3F);
    }
    *len = 4;
    return ((c & 0x07) << 18) | ((b(1) & 0x3F) << 12) | ((b(2) & 0x3F) << 6) | (b(3) & 0x3F);
}

}  // namespace slipstream::json::detail
