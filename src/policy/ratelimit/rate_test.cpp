// Rate: the strict text parser (valid and invalid tables), make() bounds and the canonical text form.
#include "policy/ratelimit/rate.h"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

namespace slipstream::policy::ratelimit {
namespace {

constexpr std::int64_t kMs = 1'000'000;
constexpr std::int64_t kSec = 1'000'000'000;

struct ValidCase {
    std::string text;
    std::uint64_t count;
    std::int64_t period_ns;
    std::uint64_t interval_num;
    std::uint64_t interval_den;
    std::string canonical;
};

TEST(RateParseTest, Valid) {
    const ValidCase cases[] = {
        {"100/s", 100, kSec, 10'000'000, 1, "100/s"},
        {"6000/m", 6000, 60 * kSec, 10'000'000, 1, "6000/min"},
        {"6000/min", 6000, 60 * kSec, 10'000'000, 1, "6000/min"},
        {"100000/h", 100'000, 3600 * kSec, 36'000'000, 1, "100000/h"},
        {"1000000/d", 1'000'000, 86'400 * kSec, 86'400'000, 1, "1000000/d"},
        {"10/5s", 10, 5 * kSec, 500'000'000, 1, "10/5s"},
        {"50/100ms", 50, 100 * kMs, 2'000'000, 1, "50/100ms"},
        {"3/s", 3, kSec, 1'000'000'000, 3, "3/s"},
        {"7/m", 7, 60 * kSec, 60'000'000'000, 7, "7/min"},
        {"1/60s", 1, 60 * kSec, 60'000'000'000, 1, "1/min"},
        {"1/90s", 1, 90 * kSec, 90'000'000'000, 1, "1/90s"},
        {"1/1000ms", 1, kSec, 1'000'000'000, 1, "1/s"},
        {"1/1s", 1, kSec, 1'000'000'000, 1, "1/s"},
        {"1/24h", 1, 86'400 * kSec, 86'400'000'000'000, 1, "1/d"},
        {"2/365d", 2, 365 * 86'400 * kSec, 365 * 43'200 * kSec, 1, "2/365d"},
        {"1/8760h", 1, 365 * 86'400 * kSec, 365 * 86'400 * kSec, 1, "1/365d"},
        {"1000000000/ms", 1'000'000'000, kMs, 1, 1000, "1000000000/ms"},
        {"999999937/s", 999'999'937, kSec, 1'000'000'000, 999'999'937, "999999937/s"},
    };
    for (const ValidCase& c : cases) {
        SCOPED_TRACE(c.text);
        base::Result<Rate> r = Rate::parse(c.text);
        ASSERT_TRUE(r.is_ok()) << r.status().message();
        EXPECT_EQ(r->count(), c.count);
        EXPECT_EQ(r->period_ns(), c.period_ns);
        EXPECT_EQ(r->interval_num(), c.interval_num);
        EXPECT_EQ(r->interval_den(), c.interval_den);
        EXPECT_EQ(r->to_string(), c.canonical);
        base::Result<Rate> again = Rate::parse(r->to_string());
        ASSERT_TRUE(again.is_ok());
        EXPECT_EQ(*again, *r);
    }
}

struct InvalidCase {
    std::string text;
    std::string message;
};

TEST(RateParseTest, Invalid) {
    const std::string units = " (expected ms, s, m, min, h or d)";
    const InvalidCase cases[] = {
        {"", R"(invalid rate "": empty; expected <count>/<period>, such as 100/s)"},
        {"100", R"(invalid rate "100": expected <count>/<period>, such as 100/s)"},
        {"100 per second", R"(invalid rate "100 per second": expected <count>/<period>, such as 100/s)"},
        {"/s", R"(invalid rate "/s": missing count before '/')"},
        {"100/", R"(invalid rate "100/": missing period after '/')"},
        {"0/s", R"(invalid rate "0/s": count must be at least 1)"},
        {"00/s", R"(invalid rate "00/s": count has a leading zero)"},
        {"007/s", R"(invalid rate "007/s": count has a leading zero)"},
        {"-1/s", R"(invalid rate "-1/s": count must be a decimal number, found "-" at offset 0)"},
        {"+1/s", R"(invalid rate "+1/s": count must be a decimal number, found "+" at offset 0)"},
        {" 100/s", R"(invalid rate " 100/s": count must be a decimal number, found " " at offset 0)"},
        {"1e3/s", R"(invalid rate "1e3/s": count must be a decimal number, found "e" at offset 1)"},
        {"1.5/s", R"(invalid rate "1.5/s": count must be a decimal number, found "." at offset 1)"},
        {"100 /s", R"(invalid rate "100 /s": count must be a decimal number, found " " at offset 3)"},
        {"1000000001/s", R"(invalid rate "1000000001/s": count exceeds 1000000000)"},
        {"99999999999999999999999/s", R"(invalid rate "99999999999999999999999/s": count exceeds 1000000000)"},
        {"100/x", R"(invalid rate "100/x": unknown period unit "x")" + units},
        {"100/S", R"(invalid rate "100/S": unknown period unit "S")" + units},
        {"100/sec", R"(invalid rate "100/sec": unknown period unit "sec")" + units},
        {"100/s ", R"(invalid rate "100/s ": unknown period unit "s ")" + units},
        {"100/ s", R"(invalid rate "100/ s": unknown period unit " s")" + units},
        {"100/s/", R"(invalid rate "100/s/": unknown period unit "s/")" + units},
        {"10/5/s", R"(invalid rate "10/5/s": unknown period unit "/s")" + units},
        {"100/-5s", R"(invalid rate "100/-5s": unknown period unit "-5s")" + units},
        {"100/1.5s", R"(invalid rate "100/1.5s": unknown period unit ".5s")" + units},
        {std::string("100/s\n"), R"(invalid rate "100/s\x0a": unknown period unit "s\x0a")" + units},
        {std::string("100/s\0", 6), R"(invalid rate "100/s\x00": unknown period unit "s\x00")" + units},
        {"1/\"s\"", R"(invalid rate "1/\"s\"": unknown period unit "\"s\"")" + units},
        {"100/5", R"(invalid rate "100/5": missing period unit after "5")" + units},
        {"100/0s", R"(invalid rate "100/0s": period multiplier must be at least 1)"},
        {"100/05s", R"(invalid rate "100/05s": period multiplier has a leading zero)"},
        {"100/366d", R"(invalid rate "100/366d": period exceeds 365 days)"},
        {"1/8761h", R"(invalid rate "1/8761h": period exceeds 365 days)"},
        {"1/31536000001ms", R"(invalid rate "1/31536000001ms": period exceeds 365 days)"},
        {"1/99999999999999999999999d", R"(invalid rate "1/99999999999999999999999d": period exceeds 365 days)"},
        {std::string(70, '9') + "/s", R"(invalid rate ")" + std::string(64, '9') + R"(...": count exceeds 1000000000)"},
    };
    for (const InvalidCase& c : cases) {
        SCOPED_TRACE(c.text);
        base::Result<Rate> r = Rate::parse(c.text);
        ASSERT_FALSE(r.is_ok());
        EXPECT_TRUE(r.status().is_invalid_argument());
        EXPECT_EQ(r.status().message(), c.message);
    }
}

TEST(RateParseTest, ParseOrThrowCarriesTheMessage) {
    EXPECT_EQ(Rate::parse_or_throw("20/m"), Rate::parse_or_throw("20/min"));
    try {
        (void)Rate::parse_or_throw("20/fortnight");
        FAIL() << "no exception";
    } catch (const std::invalid_argument& e) {
        EXPECT_EQ(std::string(e.what()),
                  R"(invalid rate "20/fortnight": unknown period unit "fortnight" (expected ms, s, m, min, h or d))");
    }
}

TEST(RateMakeTest, Bounds) {
    base::Result<Rate> ok = Rate::make(5, 1500 * kMs);
    ASSERT_TRUE(ok.is_ok());
    EXPECT_EQ(ok->to_string(), "5/1500ms");
    EXPECT_EQ(ok->interval_num(), 300'000'000u);
    EXPECT_EQ(ok->interval_den(), 1u);

    const struct {
        std::uint64_t count;
        std::int64_t period_ns;
        std::string message;
    } bad[] = {
        {0, kSec, "invalid rate: count must be at least 1"},
        {1'000'000'001, kSec, "invalid rate: count exceeds 1000000000"},
        {1, 0, "invalid rate: period must be a whole number of milliseconds, at least 1 ms"},
        {1, -kSec, "invalid rate: period must be a whole number of milliseconds, at least 1 ms"},
        {1, kMs - 1, "invalid rate: period must be a whole number of milliseconds, at least 1 ms"},
        {1, kSec + 1, "invalid rate: period must be a whole number of milliseconds, at least 1 ms"},
        {1, kMaxRatePeriodNs + kMs, "invalid rate: period exceeds 365 days"},
    };
    for (const auto& c : bad) {
        SCOPED_TRACE(c.message);
        base::Result<Rate> r = Rate::make(c.count, c.period_ns);
        ASSERT_FALSE(r.is_ok());
        EXPECT_TRUE(r.status().is_invalid_argument());
        EXPECT_EQ(r.status().message(), c.message);
    }
    EXPECT_TRUE(Rate::make(1, kMaxRatePeriodNs).is_ok());
    EXPECT_TRUE(Rate::make(kMaxRateCount, kMinRatePeriodNs).is_ok());
}

}  // namespace
}  // namespace slipstream::policy::ratelimit
