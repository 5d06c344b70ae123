// UTF-8 validation (simdjson's SIMD check first, a scalar scan to locate the first bad byte).
#include "json/utf8.h"

#include <simdjson.h>

namespace slipstream::json::detail {

// Unicode 15, table 3-7 (well-formed byte sequences).
std::size_t utf8_sequence_length(std::string_view s, std::size_t i) {
    const auto at = [&](std::size_t k) -> unsigned {
        return i + k < s.size() ? static_cast<unsigned char>(s[i + k]) : 0x100u;
    };
    const auto cont = [](unsigned c, unsigned lo, unsigned hi) { return c >= lo && c <= hi; };
    const unsigned c = at(0);
    if (c < 0x80) return 1;
    if (c >= 0xC2 && c <= 0xDF) return cont(at(1), 0x80, 0xBF) ? 2 : 0;
    if (c >= 0xE0 && c <= 0xEF) {
        const unsigned lo = c == 0xE0 ? 0xA0 : 0x80;  // no overlong forms
        const unsigned hi = c == 0xED ? 0x9F : 0xBF;  // no surrogates
        return cont(at(1), lo, hi) && cont(at(2), 0x80, 0xBF) ? 3 : 0;
    }
    if (c >= 0xF0 && c <= 0xF4) {
        const unsigned lo = c == 0xF0 ? 0x90 : 0x80;
        const unsigned hi = c == 0xF4 ? 0x8F : 0xBF;  // nothing above U+10FFFF
        return cont(at(1), lo, hi) && cont(at(2), 0x80, 0xBF) && cont(at(3), 0x80, 0xBF) ? 4 : 0;
    }
    return 0;
}

std::size_t find_invalid_utf8(std::string_view text) {
    if (simdjson::validate_utf8(text.data(), text.size())) return text.size();
    std::size_t i = 0;
    while (i < text.size()) {
        const std::size_t n = utf8_sequence_length(text, i);
        if (n == 0) return i;
        i += n;
    }
    return text.size();
}

std::size_t count_code_points(std::string_view text) {
    std::size_t n = 0;
    for (char c : text)
        n += (static_cast<unsigned char>(c) & 0xC0) != 0x80;
    return n;
}

}  // namespace slipstream::json::detail
