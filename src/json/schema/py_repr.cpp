// Python repr() of JSON values, as pydantic prints them in messages and ctx.
#include "json/schema/py_repr.h"

#include <charconv>
#include <cmath>
#include <cstdio>

namespace slipstream::json::schema::detail {
namespace {

constexpr int kMaxReprDepth = 16;

std::string py_float(double d) {
    if (std::isnan(d)) return "nan";
    if (std::isinf(d)) return d < 0 ? "-inf" : "inf";
    char buf[64];
    auto res = std::to_chars(buf, buf + sizeof(buf), d, std::chars_format::scientific);
    std::string_view sci(buf, static_cast<std::size_t>(res.ptr - buf));
    // sci = [-]D[.DDD]e[+-]XX
    bool negative = sci[0] == '-';
    if (negative) sci.remove_prefix(1);
    auto e = sci.find('e');
    std::string digits;
    for (char c : sci.substr(0, e))
        if (c != '.') digits.push_back(c);
    int exp = 0;
    std::from_chars(sci.data() + e + (sci[e + 1] == '+' ? 2 : 1), sci.data() + sci.size(), exp);
    std::string out = negative ? "-" : "";
    if (exp < -4 || exp >= 16) {
        out += digits[0];
        if (digits.size() > 1) out.append(".").append(digits, 1);
        char eb[16];
        std::snprintf(eb, sizeof(eb), "e%c%02d", exp < 0 ? '-' : '+', exp < 0 ? -exp : exp);
        return out + eb;
    }
    if (exp < 0) return out + "0." + std::string(static_cast<std::size_t>(-exp - 1), '0') + digits;
    std::size_t int_len = static_cast<std::size_t>(exp) + 1;
    if (digits.size() <= int_len) return out + digits + std::string(int_len - digits.size(), '0') + ".0";
    return out + digits.substr(0, int_len) + "." + digits.substr(int_len);
}

void append_string(std::string& out, std::string_view s) {
    bool has_single = s.find('\'') != std::string_view::npos;
    bool has_double = s.find('"') != std::string_view::npos;
    char quote = has_single && !has_double ? '"' : '\'';
    out.push_back(quote);
    for (std::size_t i = 0; i < s.size(); ++i) {
        unsigned char c = static_cast<unsigned char>(s[i]);
        char buf[8];
        if (c == '\\' || c == static_cast<unsigned char>(quote)) {
            out.push_back('\\');
            out.push_back(static_cast<char>(c));
        } else if (c == '\n') {
            out += "\\n";
        } else if (c == '\r') {
            out += "\\r";
        } else if (c == '\t') {
            out += "\\t";
        } else if (c < 0x20 || c == 0x7f) {
            std::snprintf(buf, sizeof(buf), "\\x%02x", c);
            out += buf;
        } else {
            out.push_back(static_cast<char>(c));
        }
    }
    out.push_back(quote);
}

void append_repr(std::string& out, const json::Value& v, int depth) {
    if (depth > kMaxReprDepth) {
        out += "...";
        return;
    }
    switch (v.type()) {
        case json::Type::kNull:
            out += "None";
            return;
        case json::Type::kBool:
            out += v.as_bool() ? "True" : "False";
            return;
        case json::Type::kInt:
        case json::Type::kUint:
        case json::Type::kBigInt:
        case json::Type::kDouble:
            out += py_number(v);
            return;
        case json::Type::kString:
            append_string(out, v.as_string());
            return;
        case json::Type::kArray: {
            out.push_back('[');
            for (std::uint32_t i = 0; i < v.size(); ++i) {
                if (i) out += ", ";
                append_repr(out, v.items()[i], depth + 1);
            }
            out.push_back(']');
            return;
        }
        case json::Type::kObject: {
            out.push_back('{');
            bool first = true;
            for (const json::Member& m : v.members()) {
                if (!first) out += ", ";
                first = false;
                append_string(out, m.key);
                out += ": ";
                append_repr(out, m.value, depth + 1);
            }
            out.push_back('}');
            return;
        }
    }
}

}  // namespace

std::string py_number(const json::Value& v) {
    if (v.type() == json::Type::kInt) return std::to_string(v.as_int());
    if (v.type() == json::Type::kUint) return std::to_string(v.as_uint());
    if (v.type() == json::Type::kBigInt) return std::string(v.as_decimal());
    return py_float(v.as_double());
}

std::string display_number(const json::Value& v) {
    if (v.type() != json::Type::kDouble) return py_number(v);
    double d = v.as_double();
    if (std::isnan(d)) return "NaN";
    if (std::isinf(d)) return d < 0 ? "-inf" : "inf";
    char buf[64];
    auto res = std::to_chars(buf, buf + sizeof(buf), d, std::chars_format::scientific);
    std::string_view sci(buf, static_cast<std::size_t>(res.ptr - buf));  // [-]D[.DDD]e[+-]XX
    bool negative = sci[0] == '-';
    if (negative) sci.remove_prefix(1);
    auto e = sci.find('e');
    std::string digits;
    for (char c : sci.substr(0, e))
        if (c != '.') digits.push_back(c);
    int exp = 0;
    std::from_chars(sci.data() + e + (sci[e + 1] == '+' ? 2 : 1), sci.data() + sci.size(), exp);
    while (digits.size() > 1 && digits.back() == '0')
        digits.pop_back();
    std::string out = negative ? "-" : "";
    if (digits == "0") return out + "0";
    if (exp < 0) return out + "0." + std::string(static_cast<std::size_t>(-exp - 1), '0') + digits;
    std::size_t int_len = static_cast<std::size_t>(exp) + 1;
    if (digits.size() <= int_len) return out + digits + std::string(int_len - digits.size(), '0');
    return out + digits.substr(0, int_len) + "." + digits.substr(int_len);
}

std::string py_repr(const json::Value& v) {
    std::string out;
    append_repr(out, v, 0);
    return out;
}

std::string py_expected(std::span<const json::Value> values) {
    std::string out;
    for (std::size_t i = 0; i < values.size(); ++i) {
        if (i > 0) out += i + 1 == values.size() ? " or " : ", ";
        append_repr(out, values[i], 0);
    }
    return out;
}

std::string plural(std::uint64_t n, std::string_view noun) {
    std::string out = std::to_string(n);
    out.push_back(' ');
    out.append(noun);
    if (n != 1) out.push_back('s');
    return out;
}

}  // namespace slipstream::json::schema::detail
