// StringRun: how a run of bytes reads inside a JSON string that is between two characters.
#pragma once

#include <cstdint>
#include <string_view>

namespace slipstream::agent::structured {

/// What read_string_run() found, by JsonStream's rules (escapes, surrogate pairs, well-formed UTF-8, no control
/// bytes): the bytes stay inside the string (kBody; they may end inside an escape or a UTF-8 sequence), a byte is
/// refused (kInvalid), or an unescaped quote ends the string (kCloses, at `quote`).
struct StringRun {
    enum class Kind : std::uint8_t { kBody, kInvalid, kCloses };
    Kind kind = Kind::kBody;
    std::uint32_t chars = 0;  // characters begun before the end (kBody) or the quote (kCloses): what maxLength counts
    std::uint32_t quote = 0;  // kCloses: the quote's offset
};

/// A UTF-8 lead byte (Unicode's well-formed sequences: no overlongs, no surrogates, nothing past U+10FFFF): the
/// continuation bytes it needs and the range of the first of them (the rest are 0x80..0xbf); false if `c` cannot
/// lead a sequence.
inline bool utf8_lead(unsigned char c, std::uint8_t& left, unsigned char& lo, unsigned char& hi) {
    lo = 0x80;
    hi = 0xbf;
    if (c >= 0xc2 && c <= 0xdf) {
        left = 1;
    } else if (c >= 0xe0 && c <= 0xef) {
        left = 2;
        lo = c == 0xe0 ? 0xa0 : 0x80;
        hi = c == 0xed ? 0x9f : 0xbf;
    } else if (c >= 0xf0 && c <= 0xf4) {
        left = 3;
        lo = c == 0xf0 ? 0x90 : 0x80;
        hi = c == 0xf4 ? 0x8f : 0xbf;
    } else {
        return false;
    }
    return true;
}

/// Reads `bytes` as the continuation of a string at a character boundary (no escape or UTF-8 sequence pending).
StringRun read_string_run(std::string_view bytes);

}  // namespace slipstream::agent::structured
