// Tests for kBigInt values: exact parse of integers beyond 64 bits, the digit limit, comparisons and division.
#include "json/big_integer.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "json/parse.h"
#include "json/strict_parser.h"
#include "json/value.h"
#include "json/writer.h"

namespace slipstream::json {
namespace {

std::string write(const Value& v) {
    std::string out;
    EXPECT_TRUE(Writer(out).write_value(v).is_ok());
    return out;
}

TEST(BigIntegerTest, ParsedExactlyAtEveryDepthAndWrittenBack) {
    const std::string doc =
        R"({"n":123456789012345678901234567890,"a":[-123456789012345678901234567890,18446744073709551616],)"
        R"("o":{"deep":[[99999999999999999999999]]}})";
    base::Arena arena;
    auto r = parse(doc, arena);
    ASSERT_TRUE(r.is_ok()) << r.status().to_string();
    const Value& v = **r;
    EXPECT_EQ(v.find("n")->type(), Type::kBigInt);
    EXPECT_EQ(v.find("n")->as_decimal(), "123456789012345678901234567890");
    EXPECT_EQ(v.find("a")->items()[0].as_decimal(), "-123456789012345678901234567890");
    EXPECT_EQ(v.find("a")->items()[1].as_decimal(), "18446744073709551616");
    EXPECT_EQ(v.find("o")->find("deep")->items()[0].items()[0].as_decimal(), "99999999999999999999999");
    EXPECT_EQ(write(v), doc);
}

TEST(BigIntegerTest, DigitLimitIsPythons) {
    const std::string ok(kMaxIntegerDigits, '7');
    const std::string negative_ok = "-" + ok;
    const std::string too_long = "[" + ok + "7]";
    for (const std::string& doc : {ok, negative_ok}) {
        base::Arena arena;
        auto r = parse(doc, arena);
        ASSERT_TRUE(r.is_ok());
        EXPECT_EQ((*r)->as_decimal(), doc);
    }
    base::Arena arena;
    ParseError error;
    auto r = parse(too_long, arena, {}, &error);
    ASSERT_FALSE(r.is_ok());
    EXPECT_TRUE(r.status().is_out_of_range());
    EXPECT_EQ(error.kind, ParseErrorKind::kLimit);
    EXPECT_EQ(error.message, "Integer longer than 4300 digits");
    EXPECT_EQ(error.offset, 1u);
    // A float may have any number of digits (Python reads it as a float).
    EXPECT_TRUE(parse("0." + ok + "7", arena).is_ok());
}

TEST(BigIntegerTest, BothParsePathsBuildTheSameTree) {
    const std::string doc = R"([1,-99999999999999999999,{"k":100000000000000000000000000000}])";
    base::Arena arena;
    auto fast = parse(doc, arena);
    auto strict = detail::parse_strict(doc, arena, {}, nullptr);
    ASSERT_TRUE(fast.is_ok());
    ASSERT_TRUE(strict.is_ok());
    EXPECT_TRUE(equal(**fast, **strict));
    EXPECT_EQ(write(**fast), write(**strict));
}

struct CompareCase {
    std::string_view a;
    std::string_view b;
    int expected;
};

TEST(BigIntegerTest, CompareTexts) {
    const CompareCase cases[] = {
        {"100000000000000000000", "99999999999999999999", 1},
        {"-100000000000000000000", "-99999999999999999999", -1},
        {"-100000000000000000000", "100000000000000000000", -1},
        {"123456789012345678901234567890", "123456789012345678901234567890", 0},
        {"123456789012345678901234567891", "123456789012345678901234567890", 1},
    };
    for (const CompareCase& c : cases) {
        SCOPED_TRACE(std::string(c.a) + " vs " + std::string(c.b));
        EXPECT_EQ(compare_big_integers(c.a, c.b), c.expected);
        EXPECT_EQ(compare_big_integers(c.b, c.a), -c.expected);
    }
}

TEST(BigIntegerTest, CompareWithDoubleIsExact) {
    // 1e30 is exactly 1000000000000000019884624838656.
    EXPECT_EQ(integer_text(1e30), "1000000000000000019884624838656");
    EXPECT_EQ(integer_text(-1e30), "-1000000000000000019884624838656");
    EXPECT_EQ(integer_text(18446744073709551616.0), "18446744073709551616");
    EXPECT_EQ(integer_text(1e300).size(), 301u);
    EXPECT_EQ(compare_big_integer_double("1000000000000000000000000000000", 1e30), -1);
    EXPECT_EQ(compare_big_integer_double("1000000000000000019884624838656", 1e30), 0);
    EXPECT_EQ(compare_big_integer_double("1000000000000000019884624838657", 1e30), 1);
    EXPECT_EQ(compare_big_integer_double("-100000000000000000000", 0.5), -1);
    EXPECT_EQ(compare_big_integer_double("100000000000000000000", -1e300), 1);
    EXPECT_EQ(compare_big_integer_double("100000000000000000000", HUGE_VAL), -1);
    EXPECT_EQ(compare_big_integer_double("-100000000000000000000", -HUGE_VAL), 1);
    EXPECT_EQ(big_integer_to_double("123456789012345678901234567890"), 1.2345678901234568e+29);
    EXPECT_EQ(big_integer_to_double("-" + std::string(400, '9')), -HUGE_VAL);
}

TEST(BigIntegerTest, EqualityFollowsExactValues) {
    base::Arena arena;
    auto doc = parse(R"([1000000000000000019884624838656,1e30,1000000000000000000000000000000,1.0e30])", arena);
    ASSERT_TRUE(doc.is_ok());
    auto items = (*doc)->items();
    EXPECT_TRUE(equal(items[0], items[1]));
    EXPECT_TRUE(equal(items[1], items[0]));
    EXPECT_FALSE(equal(items[2], items[1]));
    EXPECT_FALSE(equal(items[2], items[0]));
    EXPECT_TRUE(equal(items[1], items[3]));
    EXPECT_FALSE(equal(items[2], Value::integer(1)));
    EXPECT_FALSE(equal(Value::unsigned_integer(UINT64_MAX), items[2]));
}

TEST(BigIntegerTest, ModAndDivisibility) {
    EXPECT_EQ(big_integer_mod("1000000000000000000000000000000", 3), 1u);
    EXPECT_EQ(big_integer_mod("-7000000000000000000000000000000", 7), 0u);
    EXPECT_EQ(big_integer_mod("123456789012345678901234567890", 18446744073709551557ULL), 14083848168701016196ULL);
    EXPECT_TRUE(big_integer_divisible("7000000000000000000000000000000", "100000000000000000000"));
    EXPECT_FALSE(big_integer_divisible("7000000000000000000000000000001", "100000000000000000000"));
    EXPECT_TRUE(big_integer_divisible("0", "100000000000000000000"));
    EXPECT_FALSE(big_integer_divisible("5", "100000000000000000000"));
    EXPECT_TRUE(big_integer_divisible("-246913578024691357802469135780", "123456789012345678901234567890"));
}

}  // namespace
}  // namespace slipstream::json
