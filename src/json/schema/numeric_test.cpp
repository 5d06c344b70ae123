// Exact number comparison, decimal multipleOf and Python-style number/repr rendering.
#include "json/schema/numeric.h"

#include <gtest/gtest.h>

#include <cmath>

#include "json/schema/py_repr.h"
#include "json/schema/test_util.h"

namespace slipstream::json::schema::detail {
namespace {

using json::Value;

TEST(NumericTest, CompareIsExactAcrossRepresentations) {
    struct Case {
        Value a, b;
        int expected;
    } cases[] = {
        {Value::integer(1), Value::number(1.0), 0},
        {Value::integer(9007199254740993), Value::number(9007199254740992.0), 1},  // 2^53+1 > 2^53
        {Value::integer(-1), Value::unsigned_integer(18446744073709551615u), -1},
        {Value::unsigned_integer(18446744073709551615u), Value::number(1.8446744073709552e19), -1},
        {Value::integer(3), Value::number(2.5), 1},
        {Value::integer(-3), Value::number(-2.5), -1},
        {Value::integer(INT64_MIN), Value::number(-9.3e18), 1},
        {Value::number(0.1), Value::number(0.2), -1},
        {Value::number(std::nan("")), Value::integer(0), kUnordered},
    };
    for (const Case& c : cases) {
        EXPECT_EQ(compare_numbers(c.a, c.b), c.expected) << py_number(c.a) << " vs " << py_number(c.b);
        if (c.expected != kUnordered) {
            EXPECT_EQ(compare_numbers(c.b, c.a), -c.expected);
        }
    }
}

TEST(NumericTest, BigIntegersCompareAndDivideExactly) {
    const Value big = Value::big_integer("1000000000000000000000000000000");            // 10^30
    const Value big_as_double = Value::big_integer("1000000000000000019884624838656");  // exactly 1e30
    const Value negative = Value::big_integer("-18446744073709551617");
    struct Case {
        Value a, b;
        int expected;
    } cases[] = {
        {big, Value::number(1e30), -1},
        {big_as_double, Value::number(1e30), 0},
        {big, Value::unsigned_integer(UINT64_MAX), 1},
        {negative, Value::integer(INT64_MIN), -1},
        {negative, Value::number(-1.8446744073709552e19), -1},
        {negative, big, -1},
        {big, big, 0},
        {big, Value::number(std::nan("")), kUnordered},
        {big, Value::number(INFINITY), -1},
    };
    for (const Case& c : cases) {
        EXPECT_EQ(compare_numbers(c.a, c.b), c.expected) << py_number(c.a) << " vs " << py_number(c.b);
        if (c.expected != kUnordered) {
            EXPECT_EQ(compare_numbers(c.b, c.a), -c.expected);
        }
    }
    EXPECT_TRUE(is_integral(big));
    EXPECT_TRUE(is_multiple_of(big, Value::integer(5)));
    EXPECT_FALSE(is_multiple_of(big, Value::integer(3)));
    EXPECT_TRUE(is_multiple_of(big, Value::number(0.5)));
    EXPECT_TRUE(is_multiple_of(big, Value::number(1e20)));
    EXPECT_FALSE(is_multiple_of(Value::big_integer("1000000000000000000000000000001"), Value::number(1e20)));
    EXPECT_TRUE(is_multiple_of(big, Value::big_integer("100000000000000000000")));
    EXPECT_FALSE(is_multiple_of(Value::integer(5), Value::big_integer("100000000000000000000")));
    EXPECT_TRUE(is_multiple_of(Value::number(1e30), Value::big_integer("1000000000000000019884624838656")));
    EXPECT_FALSE(is_multiple_of(Value::number(1.5), Value::big_integer("100000000000000000000")));
    // "inf" and "nan" converted for a float field: pydantic's multiple_of accepts them (issue 30 item 12).
    EXPECT_TRUE(is_multiple_of(Value::number(INFINITY), Value::number(0.5)));
    EXPECT_TRUE(is_multiple_of(Value::number(NAN), Value::number(0.5)));
    EXPECT_EQ(py_number(negative), "-18446744073709551617");
    EXPECT_EQ(display_number(big), "1000000000000000000000000000000");
}

TEST(NumericTest, MultipleOf) {
    struct Case {
        Value x, d;
        bool expected;
    } cases[] = {
        {Value::integer(10), Value::integer(5), true},
        {Value::integer(-10), Value::integer(5), true},
        {Value::integer(7), Value::integer(5), false},
        {Value::number(0.0075), Value::number(0.0001), true},
        {Value::number(0.00751), Value::number(0.0001), false},
        {Value::number(0.3), Value::number(0.1), true},
        {Value::number(4.5), Value::number(1.5), true},
        {Value::number(35.0), Value::number(1.5), false},
        {Value::number(1e308), Value::number(0.123456789), false},
        {Value::number(1e308), Value::number(0.5), true},
        {Value::integer(12), Value::number(0.01), true},
        {Value::number(1e-300), Value::number(1e300), false},
        {Value::number(INFINITY), Value::integer(2), true},  // as pydantic: its remainder test is NaN there
        {Value::integer(0), Value::number(0.7), true},
    };
    for (const Case& c : cases)
        EXPECT_EQ(is_multiple_of(c.x, c.d), c.expected) << py_number(c.x) << " % " << py_number(c.d);
}

TEST(NumericTest, PythonRendering) {
    EXPECT_EQ(py_number(Value::number(2.0)), "2.0");
    EXPECT_EQ(py_number(Value::number(0.5)), "0.5");
    EXPECT_EQ(py_number(Value::number(1e16)), "1e+16");
    EXPECT_EQ(py_number(Value::number(1.5e-5)), "1.5e-05");
    EXPECT_EQ(py_number(Value::number(0.0001)), "0.0001");
    EXPECT_EQ(py_number(Value::number(123456789.125)), "123456789.125");
    EXPECT_EQ(py_number(Value::number(-INFINITY)), "-inf");
}

TEST(NumericTest, ConstraintDisplay) {  // pydantic prints constraints with Rust's Display
    EXPECT_EQ(display_number(Value::number(0.0)), "0");
    EXPECT_EQ(display_number(Value::number(-0.0)), "-0");
    EXPECT_EQ(display_number(Value::number(2.0)), "2");
    EXPECT_EQ(display_number(Value::number(-1.5)), "-1.5");
    EXPECT_EQ(display_number(Value::number(1e20)), "100000000000000000000");
    EXPECT_EQ(display_number(Value::number(1e-7)), "0.0000001");
    EXPECT_EQ(display_number(Value::number(9007199254740992.0)), "9007199254740992");
    EXPECT_EQ(display_number(Value::number(NAN)), "NaN");
    EXPECT_EQ(display_number(Value::number(-INFINITY)), "-inf");
    EXPECT_EQ(display_number(Value::integer(7)), "7");
}

TEST(NumericTest, PythonRepr) {
    base::Arena arena;
    EXPECT_EQ(py_repr(testing::parse_json(R"([1,"it's",{"k":null},true,"a\"b'"])", arena)),
              R"([1, "it's", {'k': None}, True, 'a"b\''])");
}

}  // namespace
}  // namespace slipstream::json::schema::detail
