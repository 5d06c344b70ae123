// IMF-fixdate formatting from a Unix time with the days-to-civil algorithm (no locale, no time zone database).
#include "http/h1/date_cache.h"

#include <algorithm>

namespace slipstream::http::h1 {
namespace {

constexpr std::int64_t kSecondsPerDay = 86'400;
constexpr std::int64_t kMaxSeconds = 253'402'300'799;  // 9999-12-31T23:59:59Z

void put2(char* p, unsigned v) {
    p[0] = static_cast<char>('0' + v / 10);
    p[1] = static_cast<char>('0' + v % 10);
}

}  // namespace

std::string_view format_imf_fixdate(std::int64_t unix_seconds, char (&out)[kImfFixdateSize]) {
    static constexpr char kDays[] = "ThuFriSatSunMonTueWed";  // 1970-01-01 was a Thursday
    static constexpr char kMonths[] = "JanFebMarAprMayJunJulAugSepOctNovDec";
    const std::int64_t t = std::clamp<std::int64_t>(unix_seconds, 0, kMaxSeconds);
    const std::int64_t days = t / kSecondsPerDay;
    const auto secs = static_cast<unsigned>(t % kSecondsPerDay);

    // civil_from_days (H. Hinnant), for days >= 0.
    const std::int64_t z = days + 719'468;
    const std::int64_t era = z / 146'097;
    const auto doe = static_cast<unsigned>(z - era * 146'097);
    const unsigned yoe = (doe - doe / 1460 + doe / 36'524 - doe / 146'096) / 365;
    const unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    const unsigned mp = (5 * doy + 2) / 153;
    const unsigned day = doy - (153 * mp + 2) / 5 + 1;
    const unsigned month = mp < 10 ? mp + 3 : mp - 9;
    const auto year = static_cast<unsigned>(static_cast<std::int64_t>(yoe) + era * 400 + (month <= 2 ? 1 : 0));

    char* p = out;
    const auto wday = static_cast<unsigned>(days % 7);
    p[0] = kDays[wday * 3];
    p[1] = kDays[wday * 3 + 1];
    p[2] = kDays[wday * 3 + 2];
    p[3] = ',';
    p[4] = ' ';
    put2(p + 5, day);
    p[7] = ' ';
    p[8] = kMonths[(month - 1) * 3];
    p[9] = kMonths[(month - 1) * 3 + 1];
    p[10] = kMonths[(month - 1) * 3 + 2];
    p[11] = ' ';
    put2(p + 12, year / 100);
    put2(p + 14, year % 100);
    p[16] = ' ';
    put2(p + 17, secs / 3600);
    p[19] = ':';
    put2(p + 20, secs / 60 % 60);
    p[22] = ':';
    put2(p + 23, secs % 60);
    p[25] = ' ';
    p[26] = 'G';
    p[27] = 'M';
    p[28] = 'T';
    return {out, kImfFixdateSize};
}

std::string_view DateCache::get(std::int64_t wall_nanos) {
    // Floor division, so the second before the epoch is not merged with the epoch's.
    std::int64_t second = wall_nanos / 1'000'000'000;
    if (wall_nanos % 1'000'000'000 < 0) --second;
    if (second != second_) {
        second_ = second;
        format_imf_fixdate(second, text_);
        ++formats_;
    }
    return {text_, kImfFixdateSize};
}

}  // namespace slipstream::http::h1
