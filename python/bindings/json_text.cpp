// repr(float), JSON string escaping and JsonView -> text, without the Python C API (usable off the GIL).
#include "json_text.h"

#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdlib>

namespace slipstream::python {
namespace {

// 0: copy as is; 1: short escape (\" \\ \n ...); 2: \u00XX.
struct EscapeTable {
    unsigned char kind[256];
    char short_form[256];
    constexpr EscapeTable() : kind(), short_form() {
        for (int c = 0; c < 0x20; ++c)
            kind[c] = 2;
        const char shorts[][2] = {{'"', '"'},  {'\\', '\\'}, {'\n', 'n'}, {'\r', 'r'},
                                  {'\t', 't'}, {'\b', 'b'},  {'\f', 'f'}};
        for (const auto& s : shorts) {
            kind[static_cast<unsigned char>(s[0])] = 1;
            short_form[static_cast<unsigned char>(s[0])] = s[1];
        }
    }
};
constexpr EscapeTable kEscapes;

}  // namespace

void append_double_repr(std::string& out, double d) {
    if (d == 0) {
        out.append(std::signbit(d) ? "-0.0" : "0.0");
        return;
    }
    // Shortest round-trip digits, then Python's layout: exponent form when decpt <= -4 or decpt > 16.
    char buf[64];
    auto res = std::to_chars(buf, buf + sizeof buf, d, std::chars_format::scientific);
    std::string_view s(buf, static_cast<std::size_t>(res.ptr - buf));
    if (s.front() == '-') {
        out.push_back('-');
        s.remove_prefix(1);
    }
    std::size_t e = s.find('e');
    char digits[32];
    std::size_t n = 0;
    for (char c : s.substr(0, e))
        if (c != '.') digits[n++] = c;
    std::string_view exp_text = s.substr(e + 1);
    if (!exp_text.empty() && exp_text.front() == '+') exp_text.remove_prefix(1);
    int exp10 = 0;
    std::from_chars(exp_text.data(), exp_text.data() + exp_text.size(), exp10);
    int decpt = exp10 + 1;
    if (decpt <= -4 || decpt > 16) {
        out.push_back(digits[0]);
        if (n > 1) {
            out.push_back('.');
            out.append(digits + 1, n - 1);
        }
        out.push_back('e');
        out.push_back(exp10 < 0 ? '-' : '+');
        int mag = std::abs(exp10);
        if (mag < 10) out.push_back('0');
        out.append(std::to_string(mag));
    } else if (decpt <= 0) {
        out.append("0.");
        out.append(static_cast<std::size_t>(-decpt), '0');
        out.append(digits, n);
    } else if (static_cast<std::size_t>(decpt) >= n) {
        out.append(digits, n);
        out.append(static_cast<std::size_t>(decpt) - n, '0');
        out.append(".0");
    } else {
        out.append(digits, static_cast<std::size_t>(decpt));
        out.push_back('.');
        out.append(digits + decpt, n - static_cast<std::size_t>(decpt));
    }
}

void append_json_string(std::string& out, const char* s, std::size_t n) {
    out.push_back('"');
    std::size_t run = 0;
    for (std::size_t i = 0; i < n; ++i) {
        unsigned char c = static_cast<unsigned char>(s[i]);
        unsigned char k = kEscapes.kind[c];
        if (k == 0) continue;
        out.append(s + run, i - run);
        run = i + 1;
        if (k == 1) {
            const char esc[2] = {'\\', kEscapes.short_form[c]};
            out.append(esc, 2);
        } else {
            static constexpr char kHex[] = "0123456789abcdef";
            const char esc[6] = {'\\', 'u', '0', '0', kHex[c >> 4], kHex[c & 15]};
            out.append(esc, 6);
        }
    }
    out.append(s + run, n - run);
    out.push_back('"');
}

void append_json(std::string& out, JsonView v) {
    switch (v.kind()) {
        case JsonView::Kind::kNull:
            out.append("null");
            return;
        case JsonView::Kind::kBool:
            out.append(v.as_bool() ? "true" : "false");
            return;
        case JsonView::Kind::kInt:
            out.append(std::to_string(v.as_int()));
            return;
        case JsonView::Kind::kUint:
            out.append(std::to_string(v.as_uint()));
            return;
        case JsonView::Kind::kBigInt:
            out.append(v.as_decimal());
            return;
        case JsonView::Kind::kDouble: {
            double d = v.as_double();
            if (std::isfinite(d))
                append_double_repr(out, d);
            else
                out.append(std::isnan(d) ? "NaN" : d > 0 ? "Infinity" : "-Infinity");
            return;
        }
        case JsonView::Kind::kString: {
            std::string_view s = v.as_string();
            append_json_string(out, s.data(), s.size());
            return;
        }
        case JsonView::Kind::kArray:
            out.push_back('[');
            for (std::size_t i = 0; i < v.size(); ++i) {
                if (i > 0) out.push_back(',');
                append_json(out, v.at(i));
            }
            out.push_back(']');
            return;
        case JsonView::Kind::kObject:
            out.push_back('{');
            for (std::size_t i = 0; i < v.size(); ++i) {
                if (i > 0) out.push_back(',');
                auto [key, value] = v.member(i);
                append_json_string(out, key.data(), key.size());
                out.push_back(':');
                append_json(out, value);
            }
            out.push_back('}');
            return;
    }
}

}  // namespace slipstream::python
