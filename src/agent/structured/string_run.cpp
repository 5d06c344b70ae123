// read_string_run: JsonStream's string rules as a plain loop (no events, no decoding).
#include "agent/structured/string_run.h"

namespace slipstream::agent::structured {
namespace {

int hex_value(unsigned char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

// The digits of a \uXXXX escape that are there (up to 4) could still make an acceptable code unit: hex, and as
// JsonStream refuses surrogates that cannot pair: a low half (`low`: after a high one) begins "dc".."df", and one
// of those is refused where no high half came before.
bool unit_prefix_ok(std::string_view digits, bool low) {
    for (char c : digits)
        if (hex_value(static_cast<unsigned char>(c)) < 0) return false;
    if (low && !digits.empty() && hex_value(static_cast<unsigned char>(digits[0])) != 0xd) return false;
    if (digits.size() >= 2 && hex_value(static_cast<unsigned char>(digits[0])) == 0xd)
        return (hex_value(static_cast<unsigned char>(digits[1])) >= 0xc) == low;
    return true;
}

int32_t unit_of(std::string_view digits) {
    int32_t unit = 0;
    for (char c : digits)
        unit = unit * 16 + hex_value(static_cast<unsigned char>(c));
    return unit;
}

}  // namespace

StringRun read_string_run(std::string_view bytes) {
    StringRun run;
    const auto invalid = [&run] {
        run.kind = StringRun::Kind::kInvalid;
        return run;
    };
    std::size_t i = 0;
    const std::size_t n = bytes.size();
    while (i < n) {
        const auto c = static_cast<unsigned char>(bytes[i]);
        if (c == '"') {
            run.kind = StringRun::Kind::kCloses;
            run.quote = static_cast<std::uint32_t>(i);
            return run;
        }
        if (c < 0x20) return invalid();
        ++run.chars;
        if (c < 0x80 && c != '\\') {
            ++i;
            continue;
        }
        if (c == '\\') {
            if (++i == n) return run;
            const auto e = static_cast<unsigned char>(bytes[i]);
            if (e != 'u') {
                if (e != '"' && e != '\\' && e != '/' && e != 'b' && e != 'f' && e != 'n' && e != 'r' && e != 't')
                    return invalid();
                ++i;
                continue;
            }
            const std::string_view high = bytes.substr(i + 1, 4);
            if (!unit_prefix_ok(high, false)) return invalid();
            if (high.size() < 4) return run;  // the bytes end inside the escape
            const int32_t unit = unit_of(high);
            i += 5;
            if (unit < 0xd800 || unit > 0xdbff) continue;
            // A high surrogate: "\u" and a low one must follow.
            if (i == n) return run;
            if (bytes[i] != '\\') return invalid();
            if (++i == n) return run;
            if (bytes[i] != 'u') return invalid();
            const std::string_view low = bytes.substr(i + 1, 4);
            if (!unit_prefix_ok(low, true)) return invalid();
            if (low.size() < 4) return run;
            i += 5;
            continue;
        }
        // A UTF-8 lead byte and its continuation bytes (no overlongs, no surrogates, nothing past U+10FFFF).
        std::uint8_t left = 0;
        unsigned char lo = 0x80, hi = 0xbf;
        if (!utf8_lead(c, left, lo, hi)) return invalid();
        ++i;
        for (; left > 0 && i < n; --left, ++i) {
            const auto b = static_cast<unsigned char>(bytes[i]);
            if (b < lo || b > hi) return invalid();
            lo = 0x80;
            hi = 0xbf;
        }
    }
    return run;
}

}  // namespace slipstream::agent::structured
