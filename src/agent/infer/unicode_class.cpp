// UTF-8 decoding and binary search over the generated letter and number tables.
#include "agent/infer/unicode_class.h"

#include <algorithm>

#include "agent/infer/unicode_class_table.h"

namespace slipstream::agent::infer::detail {

namespace {

template <std::size_t N>
bool in_ranges(const CodeRange (&ranges)[N], uint32_t cp) {
    const CodeRange* end = ranges + N;
    const CodeRange* it = std::upper_bound(ranges, end, cp, [](uint32_t c, const CodeRange& r) { return c < r.first; });
    return it != ranges && cp <= (it - 1)->last;
}

}  // namespace

bool is_whitespace(uint32_t cp) {
    if (cp < 0x80) return cp == ' ' || (cp >= 0x09 && cp <= 0x0d);
    return cp == 0x85 || cp == 0xa0 || cp == 0x1680 || (cp >= 0x2000 && cp <= 0x200a) || cp == 0x2028 || cp == 0x2029 ||
           cp == 0x202f || cp == 0x205f || cp == 0x3000;
}

bool is_letter(uint32_t cp) {
    if (cp < 0x80) return (cp | 0x20) >= 'a' && (cp | 0x20) <= 'z';
    return in_ranges(kLetterRanges, cp);
}

bool is_number(uint32_t cp) {
    if (cp < 0x80) return cp >= '0' && cp <= '9';
    return in_ranges(kNumberRanges, cp);
}

Utf8Char utf8_next(std::string_view s, std::size_t i) {
    const auto b0 = static_cast<uint8_t>(s[i]);
    if (b0 < 0x80) return {b0, 1};
    std::size_t len = 0;
    uint32_t cp = 0;
    uint32_t min = 0;
    if ((b0 & 0xe0) == 0xc0) {
        len = 2, cp = b0 & 0x1f, min = 0x80;
    } else if ((b0 & 0xf0) == 0xe0) {
        len = 3, cp = b0 & 0x0f, min = 0x800;
    } else if ((b0 & 0xf8) == 0xf0) {
        len = 4, cp = b0 & 0x07, min = 0x10000;
    } else {
        return {0xfffd, 1};
    }
    if (i + len > s.size()) return {0xfffd, 1};
    for (std::size_t k = 1; k < len; ++k) {
        const auto b = static_cast<uint8_t>(s[i + k]);
        if ((b & 0xc0) != 0x80) return {0xfffd, 1};
        cp = (cp << 6) | (b & 0x3f);
    }
    if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return {0xfffd, 1};
    return {cp, len};
}

void utf8_append(std::string& out, uint32_t cp) {
    if (cp < 0x80) {
        out.push_back(static_cast<char>(cp));
    } else if (cp < 0x800) {
        out.push_back(static_cast<char>(0xc0 | (cp >> 6)));
        out.push_back(static_cast<char>(0x80 | (cp & 0x3f)));
    } else if (cp < 0x10000) {
        out.push_back(static_cast<char>(0xe0 | (cp >> 12)));
        out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3f)));
        out.push_back(static_cast<char>(0x80 | (cp & 0x3f)));
    } else {
        out.push_back(static_cast<char>(0xf0 | (cp >> 18)));
        out.push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3f)));
        out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3f)));
        out.push_back(static_cast<char>(0x80 | (cp & 0x3f)));
    }
}

}  // namespace slipstream::agent::infer::detail
