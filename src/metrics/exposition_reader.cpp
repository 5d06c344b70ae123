// Test helper: strict parsing of the text exposition format 0.0.4, line by line.
#include "metrics/exposition_reader.h"

#include <charconv>
#include <cmath>
#include <limits>
#include <map>
#include <system_error>

namespace slipstream::metrics::test_util {
namespace {

bool name_char(char c, bool first, bool colon) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || (colon && c == ':') ||
           (!first && c >= '0' && c <= '9');
}

// Takes a metric (colon = true) or label name from the front of `s`; empty when there is none.
std::string take_name(std::string_view& s, bool colon) {
    std::size_t n = 0;
    while (n < s.size() && name_char(s[n], n == 0, colon))
        ++n;
    std::string name(s.substr(0, n));
    s.remove_prefix(n);
    return name;
}

bool parse_value(std::string_view s, double* out) {
    if (s == "+Inf") {
        *out = std::numeric_limits<double>::infinity();
    } else if (s == "-Inf") {
        *out = -std::numeric_limits<double>::infinity();
    } else if (s == "NaN") {
        *out = std::numeric_limits<double>::quiet_NaN();
    } else {
        auto res = std::from_chars(s.data(), s.data() + s.size(), *out);
        return !s.empty() && res.ec == std::errc() && res.ptr == s.data() + s.size();
    }
    return true;
}

// Unescapes `\\` and `\n` (and `\"` when quotes is set); false on any other escape.
bool unescape(std::string_view s, bool quotes, std::string* out) {
    for (std::size_t i = 0; i < s.size(); ++i) {
        if (s[i] != '\\') {
            *out += s[i];
            continue;
        }
        if (++i == s.size()) return false;
        if (s[i] == '\\') {
            *out += '\\';
        } else if (s[i] == 'n') {
            *out += '\n';
        } else if (quotes && s[i] == '"') {
            *out += '"';
        } else {
            return false;
        }
    }
    return true;
}

// Parses `{a="x",b="y"}` from the front of `s` into labels; returns an error text or "".
std::string take_labels(std::string_view& s, std::vector<std::pair<std::string, std::string>>* labels) {
    s.remove_prefix(1);  // '{'
    while (!s.empty() && s.front() != '}') {
        std::string name = take_name(s, false);
        if (name.empty()) return "bad label name";
        if (s.substr(0, 2) != "=\"") return "expected =\" after label " + name;
        s.remove_prefix(2);
        std::size_t end = 0;
        while (end < s.size() && s[end] != '"')
            end += s[end] == '\\' ? 2 : 1;
        if (end >= s.size()) return "unterminated value of label " + name;
        std::string value;
        if (!unescape(s.substr(0, end), true, &value)) return "bad escape in value of label " + name;
        for (const auto& [n, v] : *labels) {
            if (n == name) return "label " + name + " repeated";
        }
        labels->emplace_back(std::move(name), std::move(value));
        s.remove_prefix(end + 1);
        if (!s.empty() && s.front() == ',')
            s.remove_prefix(1);
        else if (s.empty() || s.front() != '}')
            return "expected , or } after a label";
    }
    if (s.empty()) return "unterminated label set";
    s.remove_prefix(1);
    return "";
}

bool belongs(const ParsedFamily& f, const std::string& sample) {
    if (sample == f.name) return f.type != "histogram";
    if (f.type != "histogram") return false;
    for (std::string_view suffix : {"_bucket", "_sum", "_count"}) {
        if (sample.size() == f.name.size() + suffix.size() && sample.starts_with(f.name) && sample.ends_with(suffix))
            return true;
    }
    return false;
}

// Checks each label set's buckets: le increasing and ending at +Inf, counts cumulative, +Inf == _count.
std::string check_histogram(const ParsedFamily& f) {
    struct Series {
        std::vector<std::pair<double, double>> buckets;  // le, count
        double count = -1;
        bool has_sum = false;
    };
    std::map<std::vector<std::pair<std::string, std::string>>, Series> series;
    for (const Sample& s : f.samples) {
        std::vector<std::pair<std::string, std::string>> key;
        double le = 0;
        bool has_le = false;
        for (const auto& [n, v] : s.labels) {
            if (n == "le") {
                has_le = true;
                if (!parse_value(v, &le)) return "bad le \"" + v + "\"";
            } else {
                key.emplace_back(n, v);
            }
        }
        Series& ser = series[key];
        if (s.name.ends_with("_bucket")) {
            if (!has_le) return "bucket without le";
            ser.buckets.emplace_back(le, s.value);
        } else if (has_le) {
            return "le on " + s.name;
        } else if (s.name.ends_with("_count")) {
            ser.count = s.value;
        } else {
            ser.has_sum = true;
        }
    }
    for (const auto& [key, ser] : series) {
        if (ser.buckets.empty() || !std::isinf(ser.buckets.back().first)) return "buckets do not end in +Inf";
        for (std::size_t i = 1; i < ser.buckets.size(); ++i) {
            if (!(ser.buckets[i].first > ser.buckets[i - 1].first)) return "le not increasing";
            if (ser.buckets[i].second < ser.buckets[i - 1].second) return "bucket counts not cumulative";
        }
        if (!ser.has_sum || ser.count < 0) return "missing _sum or _count";
        if (ser.count != ser.buckets.back().second) return "+Inf bucket differs from _count";
    }
    return "";
}

}  // namespace

base::Result<std::vector<ParsedFamily>> parse_exposition(std::string_view text) {
    std::vector<ParsedFamily> families;
    int line_no = 0;
    auto fail = [&](const std::string& why) {
        return base::Status::invalid_argument("line " + std::to_string(line_no) + ": " + why);
    };
    auto finish = [&]() -> std::string {
        if (families.empty() || families.back().type != "histogram") return "";
        return check_histogram(families.back());
    };
    if (!text.empty() && text.back() != '\n') return base::Status::invalid_argument("no final newline");
    while (!text.empty()) {
        ++line_no;
        std::size_t nl = text.find('\n');
        std::string_view line = text.substr(0, nl);
        text.remove_prefix(nl + 1);
        if (line.empty()) return fail("empty line");
        if (line.starts_with("# HELP ") || line.starts_with("# TYPE ")) {
            const bool help = line[2] == 'H';
            std::string_view rest = line.substr(7);
            std::string name = take_name(rest, true);
            if (name.empty() || rest.empty() || rest.front() != ' ') return fail("bad metric name in comment");
            rest.remove_prefix(1);
            if (families.empty() || families.back().name != name) {
                if (std::string err = finish(); !err.empty()) return fail(err);
                for (const ParsedFamily& f : families) {
                    if (f.name == name) return fail("family " + name + " appears twice");
                }
                families.push_back(ParsedFamily{name, "", "", {}});
            }
            ParsedFamily& f = families.back();
            if (!f.samples.empty()) return fail("HELP/TYPE after samples");
            if (help) {
                if (!f.help.empty()) return fail("second HELP");
                if (!unescape(rest, false, &f.help)) return fail("bad escape in HELP");
            } else {
                if (!f.type.empty()) return fail("second TYPE");
                if (rest != "counter" && rest != "gauge" && rest != "histogram" && rest != "summary" &&
                    rest != "untyped")
                    return fail("unknown type " + std::string(rest));
                f.type = rest;
            }
            continue;
        }
        if (line.front() == '#') return fail("unexpected comment");
        Sample sample;
        sample.name = take_name(line, true);
        if (sample.name.empty()) return fail("bad metric name");
        if (!line.empty() && line.front() == '{') {
            if (std::string err = take_labels(line, &sample.labels); !err.empty()) return fail(err);
        }
        if (line.empty() || line.front() != ' ') return fail("expected a space before the value");
        line.remove_prefix(1);
        if (!parse_value(line, &sample.value)) return fail("bad value \"" + std::string(line) + "\"");
        if (families.empty() || families.back().type.empty()) return fail("sample before its TYPE");
        if (!belongs(families.back(), sample.name)) {
            return fail("sample " + sample.name + " does not belong to family " + families.back().name);
        }
        families.back().samples.push_back(std::move(sample));
    }
    if (std::string err = finish(); !err.empty()) return fail(err);
    return families;
}

}  // namespace slipstream::metrics::test_util
