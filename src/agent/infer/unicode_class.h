// UTF-8 decoding and the Unicode classes (\s, \p{L}, \p{N}) the BPE pre-tokenizer splits on.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace slipstream::agent::infer::detail {

/// White_Space as Oniguruma's \s reads it: \t \n \v \f \r, space, U+0085, U+00A0, U+1680, U+2000..U+200A,
/// U+2028, U+2029, U+202F, U+205F, U+3000.
bool is_whitespace(uint32_t cp);
/// General category L* / N*, from the generated table (Unicode 14; later additions read as neither).
bool is_letter(uint32_t cp);
bool is_number(uint32_t cp);

struct Utf8Char {
    uint32_t cp;
    std::size_t len;
};
/// The code point starting at s[i] (i < s.size()). A malformed or truncated sequence reads as one byte with code
/// point U+FFFD, which is neither letter, number nor space.
Utf8Char utf8_next(std::string_view s, std::size_t i);
/// The UTF-8 encoding of cp, appended to out.
void utf8_append(std::string& out, uint32_t cp);

}  // namespace slipstream::agent::infer::detail
