// Escaping and exact number formatting for the text exposition format.
#include "metrics/text_format.h"

#include <charconv>
#include <cmath>
#include <system_error>

namespace slipstream::metrics::detail {

void append_label_value(std::string& out, std::string_view value) {
    for (char c : value) {
        switch (c) {
            case '\\':
                out += "\\\\";
                break;
            case '"':
                out += "\\\"";
                break;
            case '\n':
                out += "\\n";
                break;
            default:
                out += c;
        }
    }
}

void append_help(std::string& out, std::string_view help) {
    for (char c : help) {
        if (c == '\\') {
            out += "\\\\";
        } else if (c == '\n') {
            out += "\\n";
        } else {
            out += c;
        }
    }
}

void append_uint(std::string& out, std::uint64_t value) {
    char buf[24];
    auto res = std::to_chars(buf, buf + sizeof buf, value);
    out.append(buf, res.ptr);
}

void append_int(std::string& out, std::int64_t value) {
    char buf[24];
    auto res = std::to_chars(buf, buf + sizeof buf, value);
    out.append(buf, res.ptr);
}

void append_double(std::string& out, double value) {
    if (std::isnan(value)) {
        out += "NaN";
    } else if (std::isinf(value)) {
        out += value > 0 ? "+Inf" : "-Inf";
    } else {
        char buf[32];
        auto res = std::to_chars(buf, buf + sizeof buf, value);
        out.append(buf, res.ptr);
    }
}

void append_scaled(std::string& out, std::uint64_t value, std::uint64_t divisor) {
    append_uint(out, value / divisor);
    std::uint64_t frac = value % divisor;
    if (frac == 0) return;
    // Fraction digits, most significant first, until the remainder is zero (trailing zeros dropped).
    out += '.';
    for (std::uint64_t place = divisor / 10; frac != 0; place /= 10) {
        out += static_cast<char>('0' + frac / place);
        frac %= place;
    }
}

void append_sample_start(std::string& out, std::string_view name, std::string_view suffix, std::string_view labels) {
    out += name;
    out += suffix;
    if (!labels.empty()) {
        out += '{';
        out += labels;
        out += '}';
    }
    out += ' ';
}

}  // namespace slipstream::metrics::detail
