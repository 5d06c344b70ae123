// Parameterized header values: split on ';' outside quotes, unquote, decode RFC 2231 extended values.
#include "http/multipart/header_value.h"

#include <cstddef>

#include "base/percent_decode.h"

namespace slipstream::http::multipart {
namespace {

bool is_space(char c) {
    return c == ' ' || c == '\t';
}

std::string_view trim(std::string_view s) {
    while (!s.empty() && is_space(s.front()))
        s.remove_prefix(1);
    while (!s.empty() && is_space(s.back()))
        s.remove_suffix(1);
    return s;
}

std::string lower(std::string_view s) {
    std::string out(s);
    for (char& c : out)
        if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    return out;
}

// charset'language'percent-encoded -> the decoded bytes (the charset is left to the caller: UTF-8 in practice).
std::string decode_extended(std::string_view v) {
    std::size_t first = v.find('\'');
    std::size_t second = first == std::string_view::npos ? first : v.find('\'', first + 1);
    if (second != std::string_view::npos) v.remove_prefix(second + 1);
    std::string out;
    out.reserve(v.size());
    base::append_percent_decoded(v, base::PlusMode::kLiteral, out);
    return out;
}

// The value at the start of `s` (quoted or not); advances `s` past it.
std::string take_value(std::string_view& s) {
    std::string out;
    if (!s.empty() && s.front() == '"') {
        std::size_t i = 1;
        for (; i < s.size() && s[i] != '"'; ++i) {
            // Only \\ and \" are escapes (as Python's email.utils.unquote): IE sent "C:\dir\a.txt" unescaped.
            if (s[i] == '\\' && i + 1 < s.size() && (s[i + 1] == '\\' || s[i + 1] == '"')) ++i;
            out.push_back(s[i]);
        }
        s.remove_prefix(i < s.size() ? i + 1 : i);
        return out;
    }
    std::size_t end = s.find(';');
    out.assign(trim(s.substr(0, end)));
    s.remove_prefix(end == std::string_view::npos ? s.size() : end);
    return out;
}

// Skips to just after the next ';' that is outside quotes.
void skip_to_next(std::string_view& s) {
    bool quoted = false;
    std::size_t i = 0;
    for (; i < s.size(); ++i) {
        if (quoted && s[i] == '\\' && i + 1 < s.size() && (s[i + 1] == '\\' || s[i + 1] == '"')) {
            ++i;
        } else if (s[i] == '"') {
            quoted = !quoted;
        } else if (!quoted && s[i] == ';') {
            break;
        }
    }
    s.remove_prefix(i < s.size() ? i + 1 : s.size());
}

// A repeated parameter: the last one wins (as python-multipart's dict does).
void set_param(HeaderValue& out, std::string name, std::string value) {
    for (auto& [n, v] : out.params) {
        if (n == name) {
            v = std::move(value);
            return;
        }
    }
    out.params.emplace_back(std::move(name), std::move(value));
}

}  // namespace

const std::string* HeaderValue::find(std::string_view name) const {
    for (const auto& [n, v] : params)
        if (n == name) return &v;
    return nullptr;
}

HeaderValue parse_header_value(std::string_view text) {
    HeaderValue out;
    std::string_view s = text;
    std::size_t semi = s.find(';');
    out.token = lower(trim(s.substr(0, semi)));
    s.remove_prefix(semi == std::string_view::npos ? s.size() : semi + 1);
    std::vector<std::string> extended_names;
    while (!s.empty()) {
        s = trim(s);
        std::size_t eq = s.find('=');
        std::size_t next_semi = s.find(';');
        if (eq == std::string_view::npos || (next_semi != std::string_view::npos && next_semi < eq)) {
            skip_to_next(s);  // a parameter without a value
            continue;
        }
        std::string name = lower(trim(s.substr(0, eq)));
        s.remove_prefix(eq + 1);
        s = trim(s);
        std::string value = take_value(s);
        skip_to_next(s);
        if (name.empty()) continue;
        bool extended = name.back() == '*';
        if (extended) {
            name.pop_back();
            value = decode_extended(value);
            extended_names.push_back(name);
        } else {
            bool seen_extended = false;
            for (const std::string& e : extended_names)
                seen_extended = seen_extended || e == name;
            if (seen_extended) continue;  // the extended form wins whatever the order
        }
        set_param(out, std::move(name), std::move(value));
    }
    return out;
}

}  // namespace slipstream::http::multipart
