// Coercion of raw parameter strings to typed values, against pydantic's lax-mode behaviour.
#include "json/schema/coerce.h"

#include <gtest/gtest.h>

#include "json/schema/test_util.h"

namespace slipstream::json::schema {
namespace {

struct CoerceCase {
    const char* schema;
    std::vector<std::string_view> raw;
    const char* expected;             // JSON of the value, or "" when it must fail
    std::vector<std::string> errors;  // "type|loc|msg|ctx|input"
};

const CoerceCase kCases[] = {
    {R"({"type":"integer"})", {"1"}, "1", {}},
    {R"({"type":"integer"})", {" 1 "}, "1", {}},
    {R"({"type":"integer"})", {"+1"}, "1", {}},
    {R"({"type":"integer"})", {"-0"}, "0", {}},
    {R"({"type":"integer"})", {"1_000"}, "1000", {}},
    {R"({"type":"integer"})", {"1.000"}, "1", {}},
    {R"({"type":"integer"})", {"01"}, "1", {}},
    {R"({"type":"integer"})", {"\t7\n"}, "7", {}},
    {R"({"type":"integer"})",
     {"\xC2\xA0"
      "8"
      "\xE3\x80\x80"},
     "8",
     {}},
    {R"({"type":"integer"})", {"-9223372036854775808"}, "-9223372036854775808", {}},
    {R"({"type":"integer"})", {"18446744073709551615"}, "18446744073709551615", {}},
    {R"({"type":"integer"})",
     {"1.5"},
     "",
     {R"(int_parsing|[]|Input should be a valid integer, unable to parse string as an integer|null|"1.5")"}},
    {R"({"type":"integer"})",
     {"1."},
     "",
     {R"(int_parsing|[]|Input should be a valid integer, unable to parse string as an integer|null|"1.")"}},
    {R"({"type":"integer"})",
     {"1e3"},
     "",
     {R"(int_parsing|[]|Input should be a valid integer, unable to parse string as an integer|null|"1e3")"}},
    {R"({"type":"integer"})",
     {"1__0"},
     "",
     {R"(int_parsing|[]|Input should be a valid integer, unable to parse string as an integer|null|"1__0")"}},
    {R"({"type":"integer"})",
     {""},
     "",
     {R"(int_parsing|[]|Input should be a valid integer, unable to parse string as an integer|null|"")"}},
    // Beyond 64 bits: exact, as pydantic's Python ints (checked against pydantic 2.14).
    {R"({"type":"integer"})", {"99999999999999999999"}, "99999999999999999999", {}},
    {R"({"type":"integer"})", {" -0001_000000000000000000000 "}, "-1000000000000000000000", {}},
    {R"({"type":"integer"})", {"+123456789012345678901234567890.000"}, "123456789012345678901234567890", {}},
    {R"({"type":"integer"})", {"-9223372036854775809"}, "-9223372036854775809", {}},
    {R"({"type":"integer"})",
     {"123456789012345678901234567890.5"},
     "",
     {R"(int_parsing|[]|Input should be a valid integer, unable to parse string as an integer|null|"123456789012345678901234567890.5")"}},
    {R"({"type":"integer"})",
     {"1e30"},
     "",
     {R"(int_parsing|[]|Input should be a valid integer, unable to parse string as an integer|null|"1e30")"}},
    {R"({"type":"integer","exclusiveMaximum":100})",
     {"99999999999999999999999"},
     "",
     {R"(less_than|[]|Input should be less than 100|{"lt":100}|99999999999999999999999)"}},
    {R"({"type":"integer","minimum":-1000000000000000000000000000000})",
     {"-1000000000000000000000000000001"},
     "",
     {R"(greater_than_equal|[]|Input should be greater than or equal to -1000000000000000000000000000000|{"ge":-1000000000000000000000000000000}|-1000000000000000000000000000001)"}},
    {R"({"type":"integer","maximum":1000000000000000000000000000000})",
     {"1000000000000000000000000000000"},
     "1000000000000000000000000000000",
     {}},
    {R"({"type":"integer","multipleOf":3})",
     {"1000000000000000000000000000000"},
     "",
     {R"(multiple_of|[]|Input should be a multiple of 3|{"multiple_of":3}|1000000000000000000000000000000)"}},
    {R"({"type":"integer","multipleOf":7})",
     {"7000000000000000000000000000000"},
     "7000000000000000000000000000000",
     {}},
    {R"({"type":"array","items":{"type":"integer"}})",
     {"1", "-123456789012345678901234567890"},
     "[1,-123456789012345678901234567890]",
     {}},
    {R"({"type":"number"})", {"123456789012345678901234567890"}, "1.2345678901234568e+29", {}},
    {R"({"type":"number"})", {"1"}, "1.0", {}},
    {R"({"type":["integer","number"]})", {"1"}, "1", {}},
    {R"({"type":"number"})", {" 1.5 "}, "1.5", {}},
    {R"({"type":"number"})", {"1_0.5"}, "10.5", {}},
    {R"({"type":"number"})", {".5"}, "0.5", {}},
    {R"({"type":"number"})", {"1."}, "1.0", {}},
    {R"({"type":"number"})", {"1E5"}, "100000.0", {}},
    {R"({"type":"number"})", {"1e-400"}, "0.0", {}},
    {R"({"type":"number"})",
     {"abc"},
     "",
     {R"(float_parsing|[]|Input should be a valid number, unable to parse string as a number|null|"abc")"}},
    {R"({"type":"number"})",
     {"1e"},
     "",
     {R"(float_parsing|[]|Input should be a valid number, unable to parse string as a number|null|"1e")"}},
    {R"({"type":"boolean"})", {"true"}, "true", {}},
    {R"({"type":"boolean"})", {"YES"}, "true", {}},
    {R"({"type":"boolean"})", {"oN"}, "true", {}},
    {R"({"type":"boolean"})", {"t"}, "true", {}},
    {R"({"type":"boolean"})", {"0"}, "false", {}},
    {R"({"type":"boolean"})", {"off"}, "false", {}},
    {R"({"type":"boolean"})", {"n"}, "false", {}},
    {R"({"type":"boolean"})",
     {"2"},
     "",
     {R"(bool_parsing|[]|Input should be a valid boolean, unable to interpret input|null|"2")"}},
    {R"({"type":"boolean"})",
     {" true"},
     "",
     {R"(bool_parsing|[]|Input should be a valid boolean, unable to interpret input|null|" true")"}},
    {R"({"type":"string"})", {" 1 "}, R"(" 1 ")", {}},
    {R"({"anyOf":[{"type":"integer"},{"type":"null"}]})", {"5"}, "5", {}},
    {R"({"anyOf":[{"type":"integer"},{"type":"string"}]})", {"5"}, R"("5")", {}},
    {R"({"$ref":"#/$defs/i","$defs":{"i":{"type":"integer"}}})", {"6"}, "6", {}},
    {R"({"type":"integer","minimum":10})",
     {"5"},
     "",
     {R"(greater_than_equal|[]|Input should be greater than or equal to 10|{"ge":10}|5)"}},
    {R"({"type":"integer"})", {"1", "2"}, "2", {}},
    {R"({"type":"array","items":{"type":"integer"}})", {"1", "2"}, "[1,2]", {}},
    {R"({"type":"array","items":{"type":"integer"}})", {}, "[]", {}},
    {R"({"type":"array","items":{"type":"integer"}})",
     {"1", "x"},
     "",
     {R"(int_parsing|[1]|Input should be a valid integer, unable to parse string as an integer|null|"x")"}},
    {R"({"anyOf":[{"type":"array","items":{"type":"boolean"}},{"type":"null"}]})", {"yes", "0"}, "[true,false]", {}},
    {R"({"type":"array","items":{"type":"integer"},"maxItems":1})",
     {"1", "2"},
     "",
     {R"(too_long|[]|List should have at most 1 item after validation, not 2|{"field_type":"List","max_length":1,"actual_length":2}|[1,2])"}},
    {R"({"type":"array","items":{"type":"integer"},"maxItems":2})",  // pydantic stops counting at max_length + 1
     {"1", "x", "3"},
     "",
     {R"(too_long|[]|List should have at most 2 items after validation, not 3|{"field_type":"List","max_length":2,"actual_length":3}|[1,"x",3])"}},
    {R"({"type":"array","items":{"type":"integer"},"maxItems":2})",
     {"y", "x"},
     "",
     {R"(int_parsing|[0]|Input should be a valid integer, unable to parse string as an integer|null|"y")",
      R"(int_parsing|[1]|Input should be a valid integer, unable to parse string as an integer|null|"x")"}},
    // pydantic validates every item (issue 30 item 12): the items that parsed still report their constraints, and
    // an Enum's item that does not parse says "enum" (as list[IntEnum] / list[conint(gt=0)] query parameters).
    {R"({"type":"array","items":{"type":"integer","exclusiveMinimum":0}})",
     {"0", "1.5", "2"},
     "",
     {R"(greater_than|[0]|Input should be greater than 0|{"gt":0}|0)",
      R"(int_parsing|[1]|Input should be a valid integer, unable to parse string as an integer|null|"1.5")"}},
    {R"({"type":"array","items":{"type":"integer","enum":[1,2]}})",
     {"low", "3"},
     "",
     {R"(enum|[0]|Input should be 1 or 2|{"expected":"1 or 2"}|"low")",
      R"(enum|[1]|Input should be 1 or 2|{"expected":"1 or 2"}|3)"}},
    {R"({"type":"integer"})", {}, "", {R"(missing|[]|Field required|null|null)"}},
};

class CoerceTest : public ::testing::TestWithParam<CoerceCase> {};

TEST_P(CoerceTest, ParsesLikePydantic) {
    const CoerceCase& c = GetParam();
    Schema schema = testing::compile_text(c.schema);
    base::Arena arena;
    ErrorSink sink;
    auto result = coerce(schema, std::span<const std::string_view>(c.raw), arena, &sink);
    if (*c.expected != '\0') {
        ASSERT_TRUE(result.is_ok()) << result.status().to_string();
        EXPECT_EQ(testing::to_json(*result), c.expected);
        EXPECT_TRUE(sink.empty());
    } else {
        EXPECT_FALSE(result.is_ok());
        EXPECT_TRUE(result.status().is_invalid_argument());
    }
    EXPECT_EQ(testing::render_all(sink), c.errors);
}

INSTANTIATE_TEST_SUITE_P(Table, CoerceTest, ::testing::ValuesIn(kCases));

// pydantic: more than 4300 significant digits is "int_parsing_size"; with underscores Python's int() refuses
// it and pydantic says "int_parsing". Leading zeros do not count.
TEST(CoerceTest, IntegerDigitLimitIsPydantics) {
    Schema schema = testing::compile_text(R"({"type":"integer"})");
    const std::string limit(4300, '1');
    const std::string over = limit + "1";
    std::string underscored;
    for (std::size_t i = 0; i < over.size(); ++i)
        underscored += i == 0 ? "1" : "_1";
    struct Case {
        std::string raw;
        std::string expected;  // the value's JSON, or the error type
    };
    const Case cases[] = {
        {limit, limit},
        {"-" + limit, "-" + limit},
        {"000" + limit, limit},
        {limit + ".00", limit},
        {over, "int_parsing_size"},
        {"-" + over, "int_parsing_size"},
        {over + ".0", "int_parsing_size"},
        {underscored, "int_parsing"},
        {underscored.substr(2), limit},
    };
    for (const Case& c : cases) {
        SCOPED_TRACE(c.raw.substr(0, 20));
        base::Arena arena;
        ErrorSink sink;
        auto result = coerce(schema, std::string_view(c.raw), arena, &sink);
        if (result.is_ok()) {
            EXPECT_EQ(testing::to_json(*result), c.expected);
        } else {
            ASSERT_EQ(sink.errors().size(), 1u);
            EXPECT_EQ(sink.errors()[0].type, c.expected);
        }
    }
}

TEST(CoerceTest, SingleValueOverload) {
    Schema schema = testing::compile_text(R"({"type":"integer"})");
    base::Arena arena;
    auto result = coerce(schema, std::string_view("42"), arena);
    ASSERT_TRUE(result.is_ok());
    EXPECT_EQ(result->as_int(), 42);
}

}  // namespace
}  // namespace slipstream::json::schema
