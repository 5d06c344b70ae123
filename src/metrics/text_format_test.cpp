// Escaping and number formatting of the text exposition format.
#include "metrics/text_format.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <string>

namespace slipstream::metrics::detail {
namespace {

TEST(TextFormatTest, EscapesLabelValues) {
    struct Case {
        std::string in;
        std::string out;
    };
    const Case cases[] = {
        {"", ""},
        {"plain /users/{id}", "plain /users/{id}"},
        {"a\\b", "a\\\\b"},
        {"say \"hi\"", "say \\\"hi\\\""},
        {"two\nlines", "two\\nlines"},
        {"\\\"\n", "\\\\\\\"\\n"},
        {"tab\tand\rcr", "tab\tand\rcr"},  // only \ " and newline are escaped
        {"caf\xc3\xa9", "caf\xc3\xa9"},
    };
    for (const Case& c : cases) {
        std::string out;
        append_label_value(out, c.in);
        EXPECT_EQ(out, c.out) << c.in;
    }
}

TEST(TextFormatTest, EscapesHelpButNotQuotes) {
    std::string out;
    append_help(out, "a \"quoted\" back\\slash\nnext");
    EXPECT_EQ(out, "a \"quoted\" back\\\\slash\\nnext");
}

TEST(TextFormatTest, ScaledIsExactDecimal) {
    struct Case {
        std::uint64_t value;
        std::uint64_t divisor;
        std::string out;
    };
    const Case cases[] = {
        {0, 1, "0"},
        {64, 1, "64"},
        {50'000, 1'000'000'000, "0.00005"},
        {2'500'000, 1'000'000'000, "0.0025"},
        {1'000'000'000, 1'000'000'000, "1"},
        {2'500'000'000, 1'000'000'000, "2.5"},
        {12'345'678'901, 1'000'000'000, "12.345678901"},
        {1, 1'000'000'000, "0.000000001"},
        {0, 1'000'000'000, "0"},
        {15, 10, "1.5"},
        {std::numeric_limits<std::uint64_t>::max(), 1, "18446744073709551615"},
        {std::numeric_limits<std::uint64_t>::max(), 1'000'000'000, "18446744073.709551615"},
    };
    for (const Case& c : cases) {
        std::string out;
        append_scaled(out, c.value, c.divisor);
        EXPECT_EQ(out, c.out) << c.value << "/" << c.divisor;
    }
}

TEST(TextFormatTest, DoublesRoundTripAndSpecials) {
    struct Case {
        double value;
        std::string out;
    };
    const Case cases[] = {
        {0.0, "0"},
        {42.0, "42"},
        {-1.5, "-1.5"},
        {0.1, "0.1"},
        {1e21, "1e+21"},
        {std::numeric_limits<double>::infinity(), "+Inf"},
        {-std::numeric_limits<double>::infinity(), "-Inf"},
        {std::numeric_limits<double>::quiet_NaN(), "NaN"},
    };
    for (const Case& c : cases) {
        std::string out;
        append_double(out, c.value);
        EXPECT_EQ(out, c.out);
    }
}

TEST(TextFormatTest, Integers) {
    std::string out;
    append_uint(out, 18446744073709551615u);
    out += ' ';
    append_int(out, std::numeric_limits<std::int64_t>::min());
    EXPECT_EQ(out, "18446744073709551615 -9223372036854775808");
}

TEST(TextFormatTest, SampleStart) {
    std::string out;
    append_sample_start(out, "x", "_sum", "");
    append_sample_start(out, "y", "", "a=\"1\"");
    EXPECT_EQ(out, "x_sum y{a=\"1\"} ");
}

}  // namespace
}  // namespace slipstream::metrics::detail
