// DateCache and format_imf_fixdate: known dates, agreement with gmtime_r, once-per-second formatting.
#include "http/h1/date_cache.h"

#include <gtest/gtest.h>

#include <ctime>
#include <string>
#include <vector>

namespace slipstream::http::h1 {
namespace {

TEST(DateCacheTest, KnownDates) {
    const std::vector<std::pair<std::int64_t, std::string>> cases = {
        {0, "Thu, 01 Jan 1970 00:00:00 GMT"},
        {784111777, "Sun, 06 Nov 1994 08:49:37 GMT"},
        {951782400, "Tue, 29 Feb 2000 00:00:00 GMT"},
        {1700000000, "Tue, 14 Nov 2023 22:13:20 GMT"},
        {4107542399, "Sun, 28 Feb 2100 23:59:59 GMT"},
        {253402300799, "Fri, 31 Dec 9999 23:59:59 GMT"},
        {253402300800, "Fri, 31 Dec 9999 23:59:59 GMT"},
        {-1, "Thu, 01 Jan 1970 00:00:00 GMT"},
    };
    for (const auto& [seconds, text] : cases) {
        char buf[kImfFixdateSize];
        EXPECT_EQ(format_imf_fixdate(seconds, buf), text) << seconds;
    }
}

TEST(DateCacheTest, AgreesWithGmtime) {
    for (std::int64_t t = 0; t < 4'200'000'000; t += 7'777'777) {
        char ours[kImfFixdateSize];
        std::tm tm{};
        const std::time_t tt = static_cast<std::time_t>(t);
        gmtime_r(&tt, &tm);
        char theirs[64];
        const std::size_t n = std::strftime(theirs, sizeof theirs, "%a, %d %b %Y %H:%M:%S GMT", &tm);
        EXPECT_EQ(format_imf_fixdate(t, ours), std::string_view(theirs, n)) << t;
    }
}

TEST(DateCacheTest, FormatsOncePerSecond) {
    DateCache cache;
    constexpr std::int64_t kSecond = 1'000'000'000;
    const std::int64_t t = 1'700'000'000 * kSecond;
    const std::string_view a = cache.get(t);
    EXPECT_EQ(a, "Tue, 14 Nov 2023 22:13:20 GMT");
    EXPECT_EQ(cache.format_count(), 1u);
    EXPECT_EQ(cache.get(t + kSecond - 1), a);
    EXPECT_EQ(cache.get(t + 500'000'000).data(), a.data());
    EXPECT_EQ(cache.format_count(), 1u);
    EXPECT_EQ(cache.get(t + kSecond), "Tue, 14 Nov 2023 22:13:21 GMT");
    EXPECT_EQ(cache.format_count(), 2u);
    EXPECT_EQ(cache.get(t - 1), "Tue, 14 Nov 2023 22:13:19 GMT");  // the clock may step back
    EXPECT_EQ(cache.format_count(), 3u);
}

}  // namespace
}  // namespace slipstream::http::h1
