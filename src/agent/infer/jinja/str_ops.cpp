// StrOps: strip, case mapping, replace and split with Python's results.
#include "agent/infer/jinja/str_ops.h"

#include "agent/infer/jinja/builtins.h"

namespace slipstream::agent::infer::jinja {

namespace {

// The ASCII characters Python's str.isspace() accepts.
bool is_py_space(char c) {
    return c == ' ' || (c >= '\t' && c <= '\r') || (c >= '\x1c' && c <= '\x1f');
}
char upper(char c) {
    return c >= 'a' && c <= 'z' ? static_cast<char>(c - 32) : c;
}
char lower(char c) {
    return c >= 'A' && c <= 'Z' ? static_cast<char>(c + 32) : c;
}

}  // namespace

std::string py_strip(std::string_view s, const std::string* chars, bool left, bool right) {
    if (chars == nullptr) {
        std::size_t b = 0, e = s.size();
        while (left && b < e && is_py_space(s[b]))
            ++b;
        while (right && e > b && is_py_space(s[e - 1]))
            --e;
        return std::string(s.substr(b, e - b));
    }
    const std::vector<std::string_view> set = code_points(*chars);
    auto in_set = [&](std::string_view cp) {
        for (std::string_view c : set)
            if (c == cp) return true;
        return false;
    };
    const std::vector<std::string_view> cps = code_points(s);
    std::size_t b = 0, e = cps.size();
    while (left && b < e && in_set(cps[b]))
        ++b;
    while (right && e > b && in_set(cps[e - 1]))
        --e;
    std::string out;
    for (std::size_t i = b; i < e; ++i)
        out += cps[i];
    return out;
}

std::string py_upper(std::string_view s) {
    std::string out(s);
    for (char& c : out)
        c = upper(c);
    return out;
}

std::string py_lower(std::string_view s) {
    std::string out(s);
    for (char& c : out)
        c = lower(c);
    return out;
}

std::string py_capitalize(std::string_view s) {
    std::string out = py_lower(s);
    if (!out.empty()) out[0] = upper(out[0]);
    return out;
}

std::string py_title(std::string_view s) {
    std::string out(s);
    bool word_start = true;
    for (char& c : out) {
        const bool sep = is_py_space(c) || c == '-' || c == '(' || c == '{' || c == '[' || c == '<';
        c = word_start ? upper(c) : lower(c);
        word_start = sep;
    }
    return out;
}

std::string py_replace(std::string_view s, std::string_view old, std::string_view with, int64_t count) {
    std::string out;
    if (old.empty()) {  // Python inserts `with` around every character
        const std::vector<std::string_view> cps = code_points(s);
        for (std::size_t i = 0; i <= cps.size(); ++i) {
            if (count < 0 || static_cast<int64_t>(i) < count) out += with;
            if (i < cps.size()) out += cps[i];
        }
        return out;
    }
    std::size_t at = 0;
    for (int64_t n = 0; count < 0 || n < count; ++n) {
        const std::size_t hit = s.find(old, at);
        if (hit == std::string_view::npos) break;
        out.append(s.substr(at, hit - at));
        out.append(with);
        at = hit + old.size();
    }
    out.append(s.substr(at));
    return out;
}

std::vector<std::string> py_split(std::string_view s, const std::string* sep, int64_t maxsplit) {
    std::vector<std::string> out;
    if (sep != nullptr) {
        std::size_t at = 0;
        for (int64_t n = 0; maxsplit < 0 || n < maxsplit; ++n) {
            const std::size_t hit = s.find(*sep, at);
            if (hit == std::string_view::npos) break;
            out.emplace_back(s.substr(at, hit - at));
            at = hit + sep->size();
        }
        out.emplace_back(s.substr(at));
        return out;
    }
    std::size_t i = 0;
    while (i < s.size()) {
        while (i < s.size() && is_py_space(s[i]))
            ++i;
        if (i == s.size()) break;
        if (maxsplit >= 0 && static_cast<int64_t>(out.size()) == maxsplit) {
            std::size_t e = s.size();
            while (e > i && is_py_space(s[e - 1]))
                --e;
            out.emplace_back(s.substr(i, e - i));
            break;
        }
        const std::size_t b = i;
        while (i < s.size() && !is_py_space(s[i]))
            ++i;
        out.emplace_back(s.substr(b, i - b));
    }
    return out;
}

}  // namespace slipstream::agent::infer::jinja
