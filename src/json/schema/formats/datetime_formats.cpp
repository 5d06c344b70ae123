// RFC 3339 date, time, date-time and duration checkers (error texts follow pydantic/speedate).
#include "json/schema/formats/formats.h"

namespace slipstream::json::schema::formats {
namespace {

bool digit(char c) {
    return c >= '0' && c <= '9';
}

bool fail(std::string* error, std::string_view reason) {
    if (error) *error = reason;
    return false;
}

// Reads exactly `n` ASCII digits at s[pos].
bool read_digits(std::string_view s, std::size_t pos, int n, int* out) {
    if (pos + static_cast<std::size_t>(n) > s.size()) return false;
    int v = 0;
    for (int i = 0; i < n; ++i) {
        char c = s[pos + static_cast<std::size_t>(i)];
        if (!digit(c)) return false;
        v = v * 10 + (c - '0');
    }
    *out = v;
    return true;
}

bool leap_year(int y) {
    return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
}

int days_in_month(int y, int m) {
    static constexpr int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    return m == 2 && leap_year(y) ? 29 : kDays[m - 1];
}

// full-date at the start of `s`; consumes 10 bytes.
bool parse_date(std::string_view s, std::string* error) {
    int y, m, d;
    if (s.size() < 10) return fail(error, "input is too short");
    if (!read_digits(s, 0, 4, &y)) return fail(error, "invalid character in year");
    if (s[4] != '-') return fail(error, "invalid date separator, expected `-`");
    if (!read_digits(s, 5, 2, &m)) return fail(error, "invalid character in month");
    if (s[7] != '-') return fail(error, "invalid date separator, expected `-`");
    if (!read_digits(s, 8, 2, &d)) return fail(error, "invalid character in day");
    if (m < 1 || m > 12) return fail(error, "month value is outside expected range of 1-12");
    if (d < 1 || d > days_in_month(y, m)) return fail(error, "day value is outside expected range");
    return true;
}

// full-time = HH:MM:SS[.frac](Z|+HH:MM|-HH:MM); leap second only at 23:59:60 UTC.
bool parse_time(std::string_view s, std::string* error) {
    int h, mi, sec;
    if (s.size() < 8) return fail(error, "input is too short");
    if (!read_digits(s, 0, 2, &h)) return fail(error, "invalid character in hour");
    if (s[2] != ':') return fail(error, "invalid time separator, expected `:`");
    if (!read_digits(s, 3, 2, &mi)) return fail(error, "invalid character in minute");
    if (s[5] != ':') return fail(error, "invalid time separator, expected `:`");
    if (!read_digits(s, 6, 2, &sec)) return fail(error, "invalid character in second");
    if (h > 23) return fail(error, "hour value is outside expected range of 0-23");
    if (mi > 59) return fail(error, "minute value is outside expected range of 0-59");
    if (sec > 60) return fail(error, "second value is outside expected range of 0-59");
    std::size_t pos = 8;
    if (pos < s.size() && s[pos] == '.') {
        std::size_t start = ++pos;
        while (pos < s.size() && digit(s[pos]))
            ++pos;
        if (pos == start) return fail(error, "second fraction must contain at least one digit");
    }
    if (pos >= s.size()) return fail(error, "timezone offset is required (Z or +hh:mm)");
    int offset_minutes = 0;
    if (s[pos] == 'Z' || s[pos] == 'z') {
        ++pos;
    } else if (s[pos] == '+' || s[pos] == '-') {
        int oh, om;
        if (!read_digits(s, pos + 1, 2, &oh) || pos + 3 >= s.size() || s[pos + 3] != ':' ||
            !read_digits(s, pos + 4, 2, &om))
            return fail(error, "invalid timezone offset, expected +hh:mm or -hh:mm");
        if (oh > 23) return fail(error, "timezone offset must be less than 24 hours");
        if (om > 59) return fail(error, "timezone offset minute value is outside expected range of 0-59");
        offset_minutes = (s[pos] == '+' ? 1 : -1) * (oh * 60 + om);
        pos += 6;
    } else {
        return fail(error, "invalid timezone sign");
    }
    if (pos != s.size()) return fail(error, "unexpected extra characters at the end of the input");
    if (sec == 60) {
        int utc = ((h * 60 + mi - offset_minutes) % 1440 + 1440) % 1440;
        if (utc != 23 * 60 + 59) return fail(error, "second value is outside expected range of 0-59");
    }
    return true;
}

}  // namespace

bool check_date(std::string_view s, std::string* error) {
    if (!parse_date(s, error)) return false;
    if (s.size() != 10) return fail(error, "unexpected extra characters at the end of the input");
    return true;
}

bool check_time(std::string_view s, std::string* error) {
    return parse_time(s, error);
}

bool check_date_time(std::string_view s, std::string* error) {
    if (!parse_date(s, error)) return false;
    if (s.size() < 11) return fail(error, "input is too short");
    if (s[10] != 'T' && s[10] != 't') return fail(error, "invalid datetime separator, expected `T` or `t`");
    return parse_time(s.substr(11), error);
}

bool check_duration(std::string_view s, std::string* error) {
    if (s.empty() || s[0] != 'P') return fail(error, "duration must start with `P`");
    // Elements are number+unit; date units must be a contiguous run of "YMD", time units of "HMS",
    // and a week stands alone (RFC 3339 appendix A).
    std::string_view date_units = "YMD", time_units = "HMS";
    std::size_t pos = 1, next_date = 0, next_time = 0;
    int date_count = 0, time_count = 0;
    bool in_time = false, week = false;
    while (pos < s.size()) {
        if (s[pos] == 'T') {
            if (in_time || week) return fail(error, "invalid time separator in duration");
            in_time = true;
            ++pos;
            continue;
        }
        std::size_t start = pos;
        while (pos < s.size() && digit(s[pos]))
            ++pos;
        if (pos == start) return fail(error, "invalid digit in duration");
        if (pos >= s.size()) return fail(error, "duration element has no unit");
        char unit = s[pos++];
        if (unit == 'W' && !in_time) {
            if (date_count != 0 || week) return fail(error, "weeks cannot be combined with other units");
            week = true;
            continue;
        }
        if (week) return fail(error, "weeks cannot be combined with other units");
        std::string_view units = in_time ? time_units : date_units;
        std::size_t& next = in_time ? next_time : next_date;
        int& count = in_time ? time_count : date_count;
        std::size_t idx = units.find(unit);
        if (idx == std::string_view::npos || idx < next || (count > 0 && idx != next))
            return fail(error, in_time ? "quantity invalid in time part of duration"
                                       : "quantity invalid in date part of duration");
        next = idx + 1;
        ++count;
    }
    if (date_count == 0 && time_count == 0 && !week) return fail(error, "input is too short");
    if (in_time && time_count == 0) return fail(error, "duration time part has no elements");
    return true;
}

}  // namespace slipstream::json::schema::formats
