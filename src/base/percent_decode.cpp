// Percent (%XX) decoding: the strict variant (paths, queries) and the lenient one (forms, header parameters).
#include "base/percent_decode.h"

namespace slipstream::base {

StrictDecodeResult percent_decode_strict(std::string_view in, std::span<char> out, PlusMode plus) {
    char* const dst = out.data();
    std::size_t n = 0;
    bool slash = false;
    for (std::size_t i = 0; i < in.size(); ++i) {
        char c = in[i];
        if (c == '%') {
            if (in.size() - i < 3) return {PercentError::kBadEscape, 0, false};
            const int hi = hex_digit_value(in[i + 1]);
            const int lo = hex_digit_value(in[i + 2]);
            if (hi < 0 || lo < 0) return {PercentError::kBadEscape, 0, false};
            c = static_cast<char>(hi * 16 + lo);
            if (c == '\0') return {PercentError::kNul, 0, false};
            if (c == '/') slash = true;
            i += 2;
        } else if (c == '+' && plus == PlusMode::kSpace) {
            c = ' ';
        }
        dst[n++] = c;
    }
    return {PercentError::kNone, n, slash};
}

void append_percent_decoded(std::string_view in, PlusMode plus, std::string& out) {
    for (std::size_t i = 0; i < in.size(); ++i) {
        const char c = in[i];
        if (c == '%' && in.size() - i >= 3) {
            const int hi = hex_digit_value(in[i + 1]);
            const int lo = hex_digit_value(in[i + 2]);
            if (hi >= 0 && lo >= 0) {
                out.push_back(static_cast<char>(hi * 16 + lo));
                i += 2;
                continue;
            }
        }
        out.push_back(c == '+' && plus == PlusMode::kSpace ? ' ' : c);
    }
}

}  // namespace slipstream::base
