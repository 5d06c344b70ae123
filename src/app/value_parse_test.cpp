// Tests for value_parse: booleans, integers, sizes and durations, with exact error messages.
#include "app/value_parse.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace slipstream::app {
namespace {

struct NumberCase {
    const char* text;
    std::uint64_t value;  // when error is empty
    std::string error;    // "" for success
};

template <typename Parse>
void run_cases(Parse parse, const std::vector<NumberCase>& cases) {
    for (const auto& c : cases) {
        SCOPED_TRACE(c.text);
        auto r = parse(c.text);
        if (c.error.empty()) {
            ASSERT_TRUE(r.is_ok()) << r.status().message();
            EXPECT_EQ(*r, c.value);
        } else {
            ASSERT_FALSE(r.is_ok());
            EXPECT_EQ(r.status().message(), c.error);
        }
    }
}

TEST(ValueParse, Bool) {
    struct Case {
        const char* text;
        bool ok;
        bool value;
    };
    const Case cases[] = {{"true", true, true},   {"false", true, false}, {"1", true, true},   {"0", true, false},
                          {"yes", true, true},    {"no", true, false},    {"on", true, true},  {"off", true, false},
                          {"TRUE", false, false}, {"", false, false},     {"2", false, false}, {"maybe", false, false}};
    for (const auto& c : cases) {
        SCOPED_TRACE(c.text);
        auto r = parse_bool(c.text);
        ASSERT_EQ(r.is_ok(), c.ok);
        if (c.ok) {
            EXPECT_EQ(*r, c.value);
        }
    }
    EXPECT_EQ(parse_bool("maybe").status().message(), "invalid boolean 'maybe' (expected true or false)");
    EXPECT_TRUE(parse_bool("maybe").status().is_invalid_argument());
}

TEST(ValueParse, Integer) {
    run_cases(parse_integer, {
                                 {"0", 0, ""},
                                 {"8000", 8000, ""},
                                 {"18446744073709551615", 18446744073709551615ull, ""},
                                 {"18446744073709551616", 0, "integer '18446744073709551616' is too large"},
                                 {"", 0, "invalid integer ''"},
                                 {"-1", 0, "invalid integer '-1'"},
                                 {"+1", 0, "invalid integer '+1'"},
                                 {"1k", 0, "invalid integer '1k'"},
                                 {" 1", 0, "invalid integer ' 1'"},
                                 {"0x10", 0, "invalid integer '0x10'"},
                             });
    EXPECT_TRUE(parse_integer("18446744073709551616").status().is_out_of_range());
}

TEST(ValueParse, Size) {
    const char* kExpected = " (expected bytes with optional suffix k, m or g)";
    run_cases(parse_size, {
                              {"0", 0, ""},
                              {"512", 512, ""},
                              {"16k", 16 * 1024, ""},
                              {"16K", 16 * 1024, ""},
                              {"1m", 1024 * 1024, ""},
                              {"2M", 2 * 1024 * 1024, ""},
                              {"1g", 1024ull * 1024 * 1024, ""},
                              {"17179869184g", 0, "size '17179869184g' is too large"},
                              {"1kb", 0, std::string("invalid size '1kb'") + kExpected},
                              {"k", 0, std::string("invalid size 'k'") + kExpected},
                              {"1.5m", 0, std::string("invalid size '1.5m'") + kExpected},
                              {"1t", 0, std::string("invalid size '1t'") + kExpected},
                              {"", 0, std::string("invalid size ''") + kExpected},
                          });
}

TEST(ValueParse, Duration) {
    const std::string kExpected = " (expected a number with unit ms, s, m or h)";
    run_cases(parse_duration_ms, {
                                     {"250ms", 250, ""},
                                     {"10s", 10'000, ""},
                                     {"5m", 300'000, ""},
                                     {"2h", 7'200'000, ""},
                                     {"0s", 0, ""},
                                     {"10", 0, "invalid duration '10'" + kExpected},
                                     {"10sec", 0, "invalid duration '10sec'" + kExpected},
                                     {"1.5s", 0, "invalid duration '1.5s'" + kExpected},
                                     {"10S", 0, "invalid duration '10S'" + kExpected},
                                     {"9999999999999999h", 0, "duration '9999999999999999h' is too large"},
                                 });
}

TEST(ValueParse, FormatSize) {
    const std::pair<std::uint64_t, const char*> cases[] = {
        {0, "0"}, {100, "100"}, {1000, "1000"}, {8192, "8k"}, {1536, "1536"}, {1048576, "1m"}, {3ull << 30, "3g"}};
    for (const auto& [n, text] : cases)
        EXPECT_EQ(format_size(n), text);
}

TEST(ValueParse, FormatDuration) {
    const std::pair<std::uint64_t, const char*> cases[] = {{0, "0ms"},         {1, "1ms"},     {1500, "1500ms"},
                                                           {10'000, "10s"},    {60'000, "1m"}, {90'000, "90s"},
                                                           {86'400'000, "24h"}};
    for (const auto& [ms, text] : cases)
        EXPECT_EQ(format_duration_ms(ms), text);
}

}  // namespace
}  // namespace slipstream::app
