// percent_decode_strict and append_percent_decoded: escapes, '+', malformed and truncated escapes, NUL, %2F.
#include "base/percent_decode.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace slipstream::base {
namespace {

TEST(HexDigitValueTest, AllBytes) {
    for (int b = 0; b < 256; ++b) {
        const char c = static_cast<char>(b);
        int want = -1;
        if (c >= '0' && c <= '9') want = b - '0';
        if (c >= 'a' && c <= 'f') want = b - 'a' + 10;
        if (c >= 'A' && c <= 'F') want = b - 'A' + 10;
        EXPECT_EQ(hex_digit_value(c), want) << b;
    }
}

struct StrictCase {
    std::string in;
    PlusMode plus;
    PercentError error;
    std::string out;
    bool encoded_slash;
};

TEST(PercentDecodeStrictTest, Table) {
    const std::vector<StrictCase> cases = {
        {"", PlusMode::kLiteral, PercentError::kNone, "", false},
        {"plain", PlusMode::kLiteral, PercentError::kNone, "plain", false},
        {"a%20b", PlusMode::kLiteral, PercentError::kNone, "a b", false},
        {"%41%6a%6A", PlusMode::kLiteral, PercentError::kNone, "Ajj", false},
        {"%e2%82%AC", PlusMode::kLiteral, PercentError::kNone, "\xe2\x82\xac", false},
        {"a+b", PlusMode::kLiteral, PercentError::kNone, "a+b", false},
        {"a+b", PlusMode::kSpace, PercentError::kNone, "a b", false},
        {"%2B+", PlusMode::kSpace, PercentError::kNone, "+ ", false},
        {"a%2Fb", PlusMode::kLiteral, PercentError::kNone, "a/b", true},
        {"a%2fb", PlusMode::kSpace, PercentError::kNone, "a/b", true},
        {"%25", PlusMode::kLiteral, PercentError::kNone, "%", false},
        {"%2525", PlusMode::kLiteral, PercentError::kNone, "%25", false},
        {"%", PlusMode::kLiteral, PercentError::kBadEscape, "", false},
        {"%4", PlusMode::kLiteral, PercentError::kBadEscape, "", false},
        {"a%4g", PlusMode::kLiteral, PercentError::kBadEscape, "", false},
        {"%g4", PlusMode::kSpace, PercentError::kBadEscape, "", false},
        {"%2F%", PlusMode::kLiteral, PercentError::kBadEscape, "", false},
        {"%00", PlusMode::kLiteral, PercentError::kNul, "", false},
        {"a%2F%00", PlusMode::kSpace, PercentError::kNul, "", false},
        {std::string("a\0b", 3), PlusMode::kLiteral, PercentError::kNone, std::string("a\0b", 3), false},
        {"%FF\x80", PlusMode::kLiteral, PercentError::kNone, "\xff\x80", false},
    };
    for (const StrictCase& c : cases) {
        std::string out(c.in.size(), '#');
        const StrictDecodeResult r = percent_decode_strict(c.in, out, c.plus);
        EXPECT_EQ(r.error, c.error) << c.in;
        EXPECT_EQ(r.size, c.out.size()) << c.in;
        EXPECT_EQ(out.substr(0, r.size), c.out) << c.in;
        EXPECT_EQ(r.encoded_slash, c.encoded_slash) << c.in;
    }
}

struct LenientCase {
    std::string in;
    PlusMode plus;
    std::string out;
};

TEST(AppendPercentDecodedTest, Table) {
    const std::vector<LenientCase> cases = {
        {"", PlusMode::kSpace, ""},
        {"plain", PlusMode::kSpace, "plain"},
        {"a+b%20c", PlusMode::kSpace, "a b c"},
        {"a+b%20c", PlusMode::kLiteral, "a+b c"},
        {"%2B", PlusMode::kSpace, "+"},
        {"%", PlusMode::kSpace, "%"},
        {"%4", PlusMode::kSpace, "%4"},
        {"100%", PlusMode::kSpace, "100%"},
        {"%zz%41", PlusMode::kSpace, "%zzA"},
        {"%%41", PlusMode::kSpace, "%A"},
        {"%4%41", PlusMode::kSpace, "%4A"},
        {"%00", PlusMode::kSpace, std::string("\0", 1)},
        {"%e2%82%ac", PlusMode::kLiteral, "\xe2\x82\xac"},
        {"%2f", PlusMode::kLiteral, "/"},
        {"\xff%41", PlusMode::kSpace, "\xff\x41"},
    };
    for (const LenientCase& c : cases) {
        std::string out = "prefix:";
        append_percent_decoded(c.in, c.plus, out);
        EXPECT_EQ(out, "prefix:" + c.out) << c.in;
    }
}

}  // namespace
}  // namespace slipstream::base
