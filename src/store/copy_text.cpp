// COPY's text format: values to escaped fields and lines back to values.
#include "store/copy_text.h"

#include <charconv>
#include <cmath>

namespace slipstream::store {

namespace {

int hex_value(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

// Undoes COPY text escapes of one field (field[0..] up to its end). False on a trailing lone backslash.
bool unescape_field(std::string_view field, std::string& out) {
    out.reserve(field.size());
    for (std::size_t i = 0; i < field.size(); ++i) {
        char c = field[i];
        if (c != '\\') {
            out.push_back(c);
            continue;
        }
        if (++i == field.size()) return false;
        c = field[i];
        switch (c) {
            case 'b':
                out.push_back('\b');
                break;
            case 'f':
                out.push_back('\f');
                break;
            case 'n':
                out.push_back('\n');
                break;
            case 'r':
                out.push_back('\r');
                break;
            case 't':
                out.push_back('\t');
                break;
            case 'v':
                out.push_back('\v');
                break;
            case 'x': {
                int v = i + 1 < field.size() ? hex_value(field[i + 1]) : -1;
                if (v < 0) {
                    out.push_back('x');  // not followed by a hex digit: the letter itself, as the server reads it
                    break;
                }
                ++i;
                if (i + 1 < field.size() && hex_value(field[i + 1]) >= 0) v = v * 16 + hex_value(field[++i]);
                out.push_back(static_cast<char>(v));
                break;
            }
            default:
                if (c >= '0' && c <= '7') {
                    int v = c - '0';
                    for (int n = 1; n < 3 && i + 1 < field.size() && field[i + 1] >= '0' && field[i + 1] <= '7'; ++n)
                        v = v * 8 + (field[++i] - '0');
                    out.push_back(static_cast<char>(v & 0xff));
                } else {
                    out.push_back(c);
                }
                break;
        }
    }
    return true;
}

}  // namespace

void append_copy_text_escaped(std::string_view text, std::string& out) {
    std::size_t start = 0;
    for (std::size_t i = 0; i < text.size(); ++i) {
        char c = text[i];
        char esc = 0;
        switch (c) {
            case '\\':
                esc = '\\';
                break;
            case '\t':
                esc = 't';
                break;
            case '\n':
                esc = 'n';
                break;
            case '\r':
                esc = 'r';
                break;
            default:
                continue;
        }
        out.append(text.data() + start, i - start);
        out.push_back('\\');
        out.push_back(esc);
        start = i + 1;
    }
    out.append(text.data() + start, text.size() - start);
}

void append_copy_text_double(double d, std::string& out) {
    if (std::isnan(d)) {
        out += "NaN";
    } else if (std::isinf(d)) {
        out += d > 0 ? "Infinity" : "-Infinity";
    } else {
        char buf[32];
        auto [end, ec] = std::to_chars(buf, buf + sizeof buf, d);
        out.append(buf, end);
    }
}

void encode_copy_text_value(const Value& v, std::string& out) {
    switch (v.index()) {
        case 0:
            out += "\\N";
            break;
        case 1:
            out.push_back(std::get<bool>(v) ? 't' : 'f');
            break;
        case 2: {
            char buf[24];
            auto [end, ec] = std::to_chars(buf, buf + sizeof buf, std::get<std::int64_t>(v));
            out.append(buf, end);
            break;
        }
        case 3:
            append_copy_text_double(std::get<double>(v), out);
            break;
        case 4:
            append_copy_text_escaped(std::get<std::string>(v), out);
            break;
        default: {
            // bytea's hex input form, its backslash escaped for COPY.
            static constexpr char kHex[] = "0123456789abcdef";
            const std::string& data = std::get<Bytes>(v).data;
            out += "\\\\x";
            for (unsigned char b : data) {
                out.push_back(kHex[b >> 4]);
                out.push_back(kHex[b & 15]);
            }
            break;
        }
    }
}

void encode_copy_text_row(const std::vector<Value>& row, std::string& out) {
    for (std::size_t i = 0; i < row.size(); ++i) {
        if (i > 0) out.push_back('\t');
        encode_copy_text_value(row[i], out);
    }
    out.push_back('\n');
}

bool parse_copy_text_row(std::string_view line, std::vector<Value>& fields) {
    fields.clear();
    if (!line.empty() && line.back() == '\n') line.remove_suffix(1);
    std::size_t start = 0;
    for (;;) {
        std::size_t tab = line.find('\t', start);
        std::string_view field = line.substr(start, tab == std::string_view::npos ? line.size() - start : tab - start);
        if (field == "\\N") {
            fields.emplace_back(std::monostate{});
        } else {
            std::string text;
            if (!unescape_field(field, text)) return false;
            fields.emplace_back(std::move(text));
        }
        if (tab == std::string_view::npos) return true;
        start = tab + 1;
    }
}

}  // namespace slipstream::store
