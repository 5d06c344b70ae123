// pydantic's lax readings of UUID, datetime, date, time and Decimal inputs, and its error texts for each.
#include "json/schema/formats/py_types.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <utility>

namespace slipstream::json::schema::formats {
namespace {

constexpr const char* kTooShort = "input is too short";
constexpr const char* kExtra = "unexpected extra characters at the end of the input";

bool is_digit(char c) {
    return c >= '0' && c <= '9';
}

bool is_hex(char c) {
    return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

int two_digits(std::string_view s, std::size_t i) {
    return (s[i] - '0') * 10 + (s[i + 1] - '0');
}

bool digits_at(std::string_view s, std::size_t i, std::size_t n) {
    if (s.size() < i + n) return false;
    for (std::size_t k = i; k < i + n; ++k)
        if (!is_digit(s[k])) return false;
    return true;
}

// --- UUID: simple (32 hex), hyphenated (8-4-4-4-12), braced {hyphenated}, or "urn:uuid:" + hyphenated. ---

bool hyphenated(std::string_view s) {
    if (s.size() != 36) return false;
    for (std::size_t i = 0; i < 36; ++i) {
        bool hyphen_here = i == 8 || i == 13 || i == 18 || i == 23;
        if (hyphen_here ? s[i] != '-' : !is_hex(s[i])) return false;
    }
    return true;
}

bool valid_uuid(std::string_view s) {
    if (s.size() == 32) {
        for (char c : s)
            if (!is_hex(c)) return false;
        return true;
    }
    if (s.size() == 38 && s.front() == '{' && s.back() == '}') return hyphenated(s.substr(1, 36));
    if (s.size() == 45 && s.substr(0, 9) == "urn:uuid:") return hyphenated(s.substr(9));
    return hyphenated(s);
}

std::size_t utf8_length(unsigned char lead) {
    return lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : lead >= 0xc0 ? 2 : 1;
}

// Why pydantic rejects a UUID text (the first bad character, else the length, the group count or a group).
std::string uuid_reason(std::string_view s) {
    std::string_view inner = s;
    std::size_t offset = 0;
    bool simple = true;
    if (s.size() >= 2 && s.front() == '{' && s.back() == '}') {
        inner = s.substr(1, s.size() - 2);
        offset = 1;
        simple = false;
    } else if (s.substr(0, 9) == "urn:uuid:") {
        inner = s.substr(9);
        offset = 9;
        simple = false;
    }
    std::size_t hyphens = 0;
    std::size_t bounds[4] = {};
    for (std::size_t i = 0; i < inner.size(); ++i) {
        const char c = inner[i];
        if (c == '-') {
            if (hyphens < 4) bounds[hyphens] = i;
            ++hyphens;
            continue;
        }
        if (is_hex(c)) continue;
        // Every character before this one is ASCII, so the byte index is the character index.
        std::size_t len = std::min(utf8_length(static_cast<unsigned char>(c)), inner.size() - i);
        return "invalid character: found `" + std::string(inner.substr(i, len)) + "` at " + std::to_string(i + offset);
    }
    if (hyphens == 0 && simple) return "invalid length: found " + std::to_string(inner.size());
    if (hyphens != 4) return "invalid group count: expected 5, found " + std::to_string(hyphens + 1);
    constexpr std::size_t kStarts[5] = {0, 9, 14, 19, 24};
    constexpr std::size_t kLengths[5] = {8, 4, 4, 4, 12};
    for (std::size_t g = 0; g < 4; ++g)
        if (bounds[g] != kStarts[g + 1] - 1)
            return "invalid group length in group " + std::to_string(g) + ": expected " + std::to_string(kLengths[g]) +
                   ", found " + std::to_string(bounds[g] - kStarts[g]);
    // pydantic measures the last group against the whole text (braces included).
    return "invalid group length in group 4: expected 12, found " + std::to_string(s.size() - kStarts[4]);
}

// --- Dates and times, as speedate reads them. Each returns nullptr when valid, else the reason. ---

bool leap(int year) {
    return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
}

// YYYY-MM-DD at the start of `s` (more may follow).
const char* date_part(std::string_view s, int* year) {
    if (s.size() < 10) return kTooShort;
    if (!digits_at(s, 0, 4)) return "invalid character in year";
    if (s[4] != '-') return "invalid date separator, expected `-`";
    if (!digits_at(s, 5, 2)) return "invalid character in month";
    if (s[7] != '-') return "invalid date separator, expected `-`";
    if (!digits_at(s, 8, 2)) return "invalid character in day";
    *year = two_digits(s, 0) * 100 + two_digits(s, 2);
    const int month = two_digits(s, 5);
    const int day = two_digits(s, 8);
    if (month < 1 || month > 12) return "month value is outside expected range of 1-12";
    constexpr int kDays[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    const int last = month == 2 && leap(*year) ? 29 : kDays[month - 1];
    if (day < 1 || day > last) return "day value is outside expected range";
    return nullptr;
}

const char* strict_date(std::string_view s, int* year) {
    if (const char* e = date_part(s, year)) return e;
    return s.size() > 10 ? kExtra : nullptr;
}

// HH:MM[:SS[.fraction]][Z|z|±HH[:]MM] from `p` to the end; *zero: a time of exactly midnight.
const char* time_part(std::string_view s, std::size_t p, bool* zero) {
    if (s.size() < p + 5) return kTooShort;
    if (!digits_at(s, p, 2)) return "invalid character in hour";
    const int hour = two_digits(s, p);
    if (hour > 23) return "hour value is outside expected range of 0-23";
    if (s[p + 2] != ':') return "invalid time separator, expected `:`";
    if (!digits_at(s, p + 3, 2)) return "invalid character in minute";
    const int minute = two_digits(s, p + 3);
    if (minute > 59) return "minute value is outside expected range of 0-59";
    p += 5;
    int second = 0;
    bool fraction_zero = true;
    if (p < s.size() && s[p] == ':') {
        if (!digits_at(s, p + 1, 2)) return "invalid character in second";
        second = two_digits(s, p + 1);
        if (second > 59) return "second value is outside expected range of 0-59";
        p += 3;
        if (p < s.size() && s[p] == '.') {
            std::size_t start = ++p;
            for (; p < s.size() && is_digit(s[p]); ++p)  // ++p outside the &&: it must run for every digit
                if (s[p] != '0') fraction_zero = false;
            if (p == start) return "second fraction digits missing after `.`";
        }
    }
    *zero = hour == 0 && minute == 0 && second == 0 && fraction_zero;
    if (p == s.size()) return nullptr;
    if (s[p] == 'Z' || s[p] == 'z') {
        ++p;
    } else if (s[p] == '+' || s[p] == '-') {
        if (!digits_at(s, p + 1, 2)) return "invalid timezone hour";
        const int tz_hour = two_digits(s, p + 1);
        p += 3;
        if (p < s.size() && s[p] == ':') ++p;
        if (!digits_at(s, p, 2)) return "invalid timezone minute";
        const int tz_minute = two_digits(s, p);
        p += 2;
        if (tz_minute > 59) return "timezone minute value is outside expected range of 0-59";
        if (tz_hour > 23) return "timezone offset must be less than 24 hours";
    } else {
        return "invalid timezone sign";
    }
    return p == s.size() ? nullptr : kExtra;
}

// A date, or a date, a separator (T, t, _ or space) and a time.
const char* date_time(std::string_view s, int* year, bool* zero) {
    if (const char* e = date_part(s, year)) return e;
    *zero = true;
    if (s.size() == 10) return nullptr;
    const char sep = s[10];
    if (sep != 'T' && sep != 't' && sep != '_' && sep != ' ')
        return "invalid datetime separator, expected `T`, `t`, `_` or space";
    return time_part(s, 11, zero);
}

// A text that speedate reads as a Unix time: [+-] digits [. digits], one digit at least, within int64.
bool number_text(std::string_view s, double* out) {
    std::size_t p = 0;
    bool negative = false;
    if (p < s.size() && (s[p] == '+' || s[p] == '-')) negative = s[p++] == '-';
    std::uint64_t whole = 0;
    std::size_t digits = 0;
    for (; p < s.size() && is_digit(s[p]); ++p, ++digits) {
        const std::uint64_t d = static_cast<std::uint64_t>(s[p] - '0');
        if (whole > (static_cast<std::uint64_t>(INT64_MAX) + (negative ? 1 : 0) - d) / 10) return false;
        whole = whole * 10 + d;
    }
    double fraction = 0;
    if (p < s.size() && s[p] == '.') {
        double scale = 0.1;
        for (++p; p < s.size() && is_digit(s[p]); ++p, ++digits, scale /= 10)
            fraction += (s[p] - '0') * scale;
    }
    if (p != s.size() || digits == 0) return false;
    const double value = static_cast<double>(whole) + fraction;
    *out = negative ? -value : value;
    return true;
}

enum class Stamp { kOk, kAfter, kBefore, kYearZero, kNan };

// A Unix time in seconds (milliseconds above 2e10 in magnitude); *midnight: it falls on a day boundary.
Stamp unix_time(double t, bool* midnight) {
    if (std::isnan(t)) return Stamp::kNan;
    if (std::fabs(t) > 2e10) t /= 1000;
    if (t >= 253402300800.0) return Stamp::kAfter;  // 10000-01-01T00:00:00Z
    if (t < -62167219200.0) return Stamp::kBefore;  // 0000-01-01T00:00:00Z
    if (t < -62135596800.0) return Stamp::kYearZero;
    *midnight = std::fmod(t, 86400.0) == 0.0;
    return Stamp::kOk;
}

const char* stamp_reason(Stamp s) {
    switch (s) {
        case Stamp::kAfter:
            return "dates after 9999 are not supported as unix timestamps";
        case Stamp::kBefore:
            return "dates before 0000 are not supported as unix timestamps";
        case Stamp::kYearZero:
            return "year 0 is out of range";
        case Stamp::kNan:
            return "NaN values not permitted";
        case Stamp::kOk:
            break;
    }
    return nullptr;
}

bool fail(PyTypeFailure* f, std::string_view type, std::string_view prefix, std::string error) {
    if (f == nullptr) return false;
    f->type = type;
    f->msg = std::string(prefix);
    f->msg += error;
    f->error = std::move(error);
    return false;
}

bool fail_plain(PyTypeFailure* f, std::string_view type, std::string_view msg) {
    if (f == nullptr) return false;
    f->type = type;
    f->msg = std::string(msg);
    f->error.clear();
    return false;
}

constexpr std::string_view kDatetimeOrDate = "Input should be a valid datetime or date, ";
constexpr std::string_view kDatetime = "Input should be a valid datetime, ";
constexpr std::string_view kDateOrDatetime = "Input should be a valid date or datetime, ";
constexpr std::string_view kInexact = "Datetimes provided to dates should have zero time - e.g. be exact dates";

bool check_datetime(const json::Value& v, PyTypeFailure* f) {
    double t = 0;
    bool midnight = false;
    if (v.is_number()) {
        Stamp s = unix_time(v.as_double(), &midnight);
        return s == Stamp::kOk || fail(f, "datetime_parsing", kDatetime, stamp_reason(s));
    }
    if (!v.is_string()) return fail_plain(f, "datetime_type", "Input should be a valid datetime");
    std::string_view s = v.as_string();
    if (number_text(s, &t)) {
        Stamp st = unix_time(t, &midnight);
        return st == Stamp::kOk || fail(f, "datetime_from_date_parsing", kDatetimeOrDate, stamp_reason(st));
    }
    int year = 1;
    bool zero = false;
    if (date_time(s, &year, &zero) == nullptr)
        return year != 0 || fail(f, "datetime_parsing", kDatetime, "year 0 is out of range");
    const char* e = strict_date(s, &year);
    return e == nullptr || fail(f, "datetime_from_date_parsing", kDatetimeOrDate, e);
}

bool check_date(const json::Value& v, PyTypeFailure* f) {
    double t = 0;
    if (v.is_number() || (v.is_string() && number_text(v.as_string(), &t))) {
        bool midnight = false;
        Stamp st = unix_time(v.is_number() ? v.as_double() : t, &midnight);
        if (st != Stamp::kOk) return fail(f, "date_from_datetime_parsing", kDateOrDatetime, stamp_reason(st));
        return midnight || fail_plain(f, "date_from_datetime_inexact", kInexact);
    }
    if (!v.is_string()) return fail_plain(f, "date_type", "Input should be a valid date");
    std::string_view s = v.as_string();
    int year = 1;
    if (strict_date(s, &year) == nullptr) return true;
    bool zero = false;
    if (const char* e = date_time(s, &year, &zero)) return fail(f, "date_from_datetime_parsing", kDateOrDatetime, e);
    return zero || fail_plain(f, "date_from_datetime_inexact", kInexact);
}

bool check_time(const json::Value& v, PyTypeFailure* f) {
    constexpr std::string_view kPrefix = "Input should be in a valid time format, ";
    if (v.is_number()) {
        const double t = v.as_double();
        if (t < 0) return fail(f, "time_parsing", kPrefix, "time in seconds should be positive");
        if (!(t < 86400)) return fail(f, "time_parsing", kPrefix, "numeric times may not exceed 86,399 seconds");
        return true;
    }
    if (!v.is_string()) return fail_plain(f, "time_type", "Input should be a valid time");
    bool zero = false;
    const char* e = time_part(v.as_string(), 0, &zero);
    return e == nullptr || fail(f, "time_parsing", kPrefix, e);
}

// --- Decimal: Python's decimal.Decimal(text.strip()), underscores removed first. ---

bool is_space(char c) {
    return c == ' ' || (c >= '\t' && c <= '\r') || (c >= '\x1c' && c <= '\x1f');
}

// One or more digits; false when none.
bool digit_groups(std::string_view s, std::size_t* p) {
    std::size_t start = *p;
    while (*p < s.size() && is_digit(s[*p]))
        ++*p;
    return *p > start;
}

bool iequals(std::string_view a, std::string_view b) {
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i) {
        char x = a[i] >= 'A' && a[i] <= 'Z' ? static_cast<char>(a[i] + 32) : a[i];
        if (x != b[i]) return false;
    }
    return true;
}

enum class DecimalText { kFinite, kSpecial, kInvalid };

DecimalText decimal_grammar(std::string_view s);

// pydantic drops every underscore before reading the text (so "1__0" and "_1" are 10 and 1).
DecimalText decimal_text(std::string_view s) {
    if (s.find('_') == std::string_view::npos) return decimal_grammar(s);
    std::string plain;
    for (char c : s)
        if (c != '_') plain.push_back(c);
    return decimal_grammar(plain);
}

DecimalText decimal_grammar(std::string_view s) {
    while (!s.empty() && is_space(s.front()))
        s.remove_prefix(1);
    while (!s.empty() && is_space(s.back()))
        s.remove_suffix(1);
    std::size_t p = 0;
    if (p < s.size() && (s[p] == '+' || s[p] == '-')) ++p;
    std::string_view rest = s.substr(p);
    if (iequals(rest, "inf") || iequals(rest, "infinity")) return DecimalText::kSpecial;
    for (std::string_view nan : {std::string_view("nan"), std::string_view("snan")}) {
        if (rest.size() >= nan.size() && iequals(rest.substr(0, nan.size()), nan)) {
            std::size_t q = nan.size();
            if (q == rest.size() || digit_groups(rest, &q))
                return q == rest.size() ? DecimalText::kSpecial : DecimalText::kInvalid;
            return DecimalText::kInvalid;
        }
    }
    bool whole = digit_groups(s, &p);
    bool fraction = false;
    if (p < s.size() && s[p] == '.') {
        ++p;
        fraction = digit_groups(s, &p);
    }
    if (!whole && !fraction) return DecimalText::kInvalid;
    if (p < s.size() && (s[p] == 'e' || s[p] == 'E')) {
        ++p;
        if (p < s.size() && (s[p] == '+' || s[p] == '-')) ++p;
        if (!digit_groups(s, &p)) return DecimalText::kInvalid;
    }
    return p == s.size() ? DecimalText::kFinite : DecimalText::kInvalid;
}

bool check_decimal(const json::Value& v, PyTypeFailure* f) {
    if (v.is_number()) return true;
    if (!v.is_string())
        return fail_plain(f, "decimal_type", "Decimal input should be an integer, float, string or Decimal object");
    switch (decimal_text(v.as_string())) {
        case DecimalText::kFinite:
            return true;
        case DecimalText::kSpecial:
            return fail_plain(f, "finite_number", "Input should be a finite number");
        case DecimalText::kInvalid:
            break;
    }
    return fail_plain(f, "decimal_parsing", "Input should be a valid decimal");
}

bool check_uuid(const json::Value& v, PyTypeFailure* f) {
    if (!v.is_string()) return fail_plain(f, "uuid_type", "UUID input should be a string, bytes or UUID object");
    if (valid_uuid(v.as_string())) return true;
    if (f == nullptr) return false;
    return fail(f, "uuid_parsing", "Input should be a valid UUID, ", uuid_reason(v.as_string()));
}

}  // namespace

bool find_py_type(std::string_view name, PyType* out) {
    static constexpr std::pair<std::string_view, PyType> kNames[] = {
        {"uuid", PyType::kUuid}, {"datetime", PyType::kDatetime}, {"date", PyType::kDate},
        {"time", PyType::kTime}, {"decimal", PyType::kDecimal},
    };
    for (const auto& [n, t] : kNames)
        if (n == name) return (*out = t, true);
    return false;
}

bool check_py_value(PyType type, const json::Value& v, PyTypeFailure* failure) {
    switch (type) {
        case PyType::kUuid:
            return check_uuid(v, failure);
        case PyType::kDatetime:
            return check_datetime(v, failure);
        case PyType::kDate:
            return check_date(v, failure);
        case PyType::kTime:
            return check_time(v, failure);
        case PyType::kDecimal:
            return check_decimal(v, failure);
    }
    return true;
}

}  // namespace slipstream::json::schema::formats
