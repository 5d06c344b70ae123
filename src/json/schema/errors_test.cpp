// Error types, messages, ctx and locations (pydantic v2 / FastAPI names), table-driven.
#include <gtest/gtest.h>

#include "json/schema/test_util.h"

namespace slipstream::json::schema {
namespace {

using testing::parse_json;
using testing::render_all;

struct ErrorCase {
    const char* name;
    const char* schema;
    const char* instance;
    std::vector<std::string> errors;  // "type|loc|msg|ctx|input"
    bool format_assertion = false;
};

const ErrorCase kCases[] = {
    {"missing", R"({"type":"object","required":["name"]})", R"({})", {R"(missing|["name"]|Field required|null|{})"}},
    {"int_type", R"({"type":"integer"})", R"("1")", {R"(int_type|[]|Input should be a valid integer|null|"1")"}},
    {"int_from_float",
     R"({"type":"integer"})",
     R"(1.5)",
     {R"(int_from_float|[]|Input should be a valid integer, got a number with a fractional part|null|1.5)"}},
    {"integral float is an integer", R"({"type":"integer"})", R"(2.0)", {}},
    {"string_type", R"({"type":"string"})", R"(1)", {R"(string_type|[]|Input should be a valid string|null|1)"}},
    {"float_type", R"({"type":"number"})", R"(true)", {R"(float_type|[]|Input should be a valid number|null|true)"}},
    {"bool_type", R"({"type":"boolean"})", R"(0)", {R"(bool_type|[]|Input should be a valid boolean|null|0)"}},
    {"none_required", R"({"type":"null"})", R"(0)", {R"(none_required|[]|Input should be None|null|0)"}},
    {"optional int reports int",
     R"({"type":["integer","null"]})",
     R"("x")",
     {R"(int_type|[]|Input should be a valid integer|null|"x")"}},
    {"list_type", R"({"type":"array"})", R"({})", {R"(list_type|[]|Input should be a valid list|null|{})"}},
    {"dict_type", R"({"type":"object"})", R"([])", {R"(dict_type|[]|Input should be a valid dictionary|null|[])"}},
    {"model_attributes_type",
     R"({"type":"object","properties":{"a":{}}})",
     R"([1])",
     {R"(model_attributes_type|[]|Input should be a valid dictionary or object to extract fields from|null|[1])"}},
    {"string_too_short",
     R"({"minLength":3})",
     R"("ab")",
     {R"(string_too_short|[]|String should have at least 3 characters|{"min_length":3}|"ab")"}},
    {"string_too_short singular",
     R"({"minLength":1})",
     R"("")",
     {R"(string_too_short|[]|String should have at least 1 character|{"min_length":1}|"")"}},
    {"length counts code points", R"({"maxLength":2})", R"("éé")", {}},
    {"string_too_long",
     R"({"maxLength":1})",
     R"("ab")",
     {R"(string_too_long|[]|String should have at most 1 character|{"max_length":1}|"ab")"}},
    {"greater_than_equal",
     R"({"minimum":0})",
     R"(-1)",
     {R"(greater_than_equal|[]|Input should be greater than or equal to 0|{"ge":0}|-1)"}},
    {"greater_than",
     R"({"exclusiveMinimum":0})",
     R"(0)",
     {R"(greater_than|[]|Input should be greater than 0|{"gt":0}|0)"}},
    {"greater_than float bound (pydantic prints 0, ctx keeps 0.0)",
     R"({"exclusiveMinimum":0.0})",
     R"(-1)",
     {R"(greater_than|[]|Input should be greater than 0|{"gt":0.0}|-1)"}},
    {"less_than_equal float",
     R"({"maximum":0.5})",
     R"(1)",
     {R"(less_than_equal|[]|Input should be less than or equal to 0.5|{"le":0.5}|1)"}},
    {"less_than",
     R"({"exclusiveMaximum":10})",
     R"(10.0)",
     {R"(less_than|[]|Input should be less than 10|{"lt":10}|10.0)"}},
    {"string_pattern_mismatch",
     R"({"pattern":"^a"})",
     R"("b")",
     {R"(string_pattern_mismatch|[]|String should match pattern '^a'|{"pattern":"^a"}|"b")"}},
    {"enum two",
     R"({"enum":["a","b"]})",
     R"("c")",
     {R"(enum|[]|Input should be 'a' or 'b'|{"expected":"'a' or 'b'"}|"c")"}},
    {"enum mixed",
     R"({"enum":[1,"x",null,true]})",
     R"("q")",
     {R"(enum|[]|Input should be 1, 'x', None or True|{"expected":"1, 'x', None or True"}|"q")"}},
    {"literal_error", R"({"const":"a"})", R"("b")", {R"(literal_error|[]|Input should be 'a'|{"expected":"'a'"}|"b")"}},
    {"too_short list",
     R"({"minItems":1})",
     R"([])",
     {R"(too_short|[]|List should have at least 1 item after validation, not 0|{"field_type":"List","min_length":1,"actual_length":0}|[])"}},
    {"too_long list",
     R"({"maxItems":2})",
     R"([1,2,3])",
     {R"(too_long|[]|List should have at most 2 items after validation, not 3|{"field_type":"List","max_length":2,"actual_length":3}|[1,2,3])"}},
    {"too_short dict",
     R"({"minProperties":1})",
     R"({})",
     {R"(too_short|[]|Dictionary should have at least 1 item after validation, not 0|{"field_type":"Dictionary","min_length":1,"actual_length":0}|{})"}},
    {"tuple too_long",
     R"({"prefixItems":[{},{}],"items":false})",
     R"([1,2,3])",
     {R"(too_long|[]|Tuple should have at most 2 items after validation, not 3|{"field_type":"Tuple","max_length":2,"actual_length":3}|[1,2,3])"}},
    {"extra_forbidden",
     R"({"properties":{"a":{}},"additionalProperties":false})",
     R"({"a":1,"z":2})",
     {R"(extra_forbidden|["z"]|Extra inputs are not permitted|null|2)"}},
    {"unevaluated extra_forbidden",
     R"({"allOf":[{"properties":{"a":{}}}],"unevaluatedProperties":false})",
     R"({"a":1,"z":2})",
     {R"(extra_forbidden|["z"]|Extra inputs are not permitted|null|2)"}},
    {"multiple_of",
     R"({"multipleOf":5})",
     R"(7)",
     {R"(multiple_of|[]|Input should be a multiple of 5|{"multiple_of":5}|7)"}},
    {"multiple_of decimal",
     R"({"multipleOf":0.1})",
     R"(0.25)",
     {R"(multiple_of|[]|Input should be a multiple of 0.1|{"multiple_of":0.1}|0.25)"}},
    {"unique_items",
     R"({"uniqueItems":true})",
     R"([1,2,1.0])",
     {R"(unique_items|[2]|List should have unique items|{"duplicate_of":0}|1.0)"}},
    {"not", R"({"not":{"type":"string"}})", R"("x")", {R"(not|[]|Input should not match the 'not' schema|null|"x")"}},
    {"oneOf matches two",
     R"({"oneOf":[{"type":"integer"},{"minimum":0}]})",
     R"(1)",
     {R"(one_of|[]|Input should match exactly one of the 'oneOf' schemas, but matched more than one|null|1)"}},
    {"anyOf reports each branch",
     R"({"anyOf":[{"type":"integer"},{"type":"string"}]})",
     R"(1.5)",
     {R"(int_from_float|[]|Input should be a valid integer, got a number with a fractional part|null|1.5)",
      R"(string_type|[]|Input should be a valid string|null|1.5)"}},
    {"anyOf Optional drops null branch",
     R"({"anyOf":[{"type":"integer"},{"type":"null"}]})",
     R"("x")",
     {R"(int_type|[]|Input should be a valid integer|null|"x")"}},
    {"contains",
     R"({"contains":{"type":"string"}})",
     R"([1])",
     {R"(contains|[]|List should contain at least 1 item matching the 'contains' schema, found 0|{"min_contains":1,"actual_contains":0}|[1])"}},
    {"max_contains",
     R"({"contains":{"type":"integer"},"maxContains":1})",
     R"([1,2])",
     {R"(max_contains|[]|List should contain at most 1 item matching the 'contains' schema, found 2|{"max_contains":1,"actual_contains":2}|[1,2])"}},
    {"dependentRequired",
     R"({"dependentRequired":{"a":["b"]}})",
     R"({"a":1})",
     {R"(missing|["b"]|Field required|null|{"a":1})"}},
    {"false schema",
     R"({"properties":{"a":false}})",
     R"({"a":1})",
     {R"(false_schema|["a"]|No value is permitted here|null|1)"}},
    {"nested locations",
     R"({"properties":{"a":{"items":{"properties":{"b":{"type":"string"}}}}}})",
     R"({"a":[{"b":"x"},{"b":2}]})",
     {R"(string_type|["a",1,"b"]|Input should be a valid string|null|2)"}},
    {"propertyNames",
     R"({"propertyNames":{"maxLength":1}})",
     R"({"ab":1})",
     {R"(string_too_long|["ab"]|String should have at most 1 character|{"max_length":1}|"ab")"}},
    {"if then",
     R"({"if":{"type":"integer"},"then":{"minimum":10}})",
     R"(5)",
     {R"(greater_than_equal|[]|Input should be greater than or equal to 10|{"ge":10}|5)"}},
    {"uuid_parsing",
     R"({"format":"uuid"})",
     R"("12345678-1234-1234-1234-12345678901")",
     {R"(uuid_parsing|[]|Input should be a valid UUID, invalid group length in group 4: expected 12, found 11|{"error":"invalid group length in group 4: expected 12, found 11"}|"12345678-1234-1234-1234-12345678901")"},
     true},
    {"uuid bad char",
     R"({"format":"uuid"})",
     R"("x")",
     {R"(uuid_parsing|[]|Input should be a valid UUID, invalid character: found `x` at 1|{"error":"invalid character: found `x` at 1"}|"x")"},
     true},
    {"datetime",
     R"({"format":"date-time"})",
     R"("2020-13-01T00:00:00Z")",
     {R"(datetime_from_date_parsing|[]|Input should be a valid datetime or date, month value is outside expected range of 1-12|{"error":"month value is outside expected range of 1-12"}|"2020-13-01T00:00:00Z")"},
     true},
    {"date",
     R"({"format":"date"})",
     R"("2021-02-29")",
     {R"(date_from_datetime_parsing|[]|Input should be a valid date or datetime, day value is outside expected range|{"error":"day value is outside expected range"}|"2021-02-29")"},
     true},
    {"time",
     R"({"format":"time"})",
     R"("25:00:00Z")",
     {R"(time_parsing|[]|Input should be in a valid time format, hour value is outside expected range of 0-23|{"error":"hour value is outside expected range of 0-23"}|"25:00:00Z")"},
     true},
    {"ipv4",
     R"({"format":"ipv4"})",
     R"("1.2.3")",
     {R"(ip_v4_address|[]|Input is not a valid IPv4 address|null|"1.2.3")"},
     true},
    {"format is annotation by default", R"({"format":"ipv4"})", R"("1.2.3")", {}},
    {"several errors collected",
     R"({"type":"object","required":["name","price"],"properties":{"name":{"type":"string"},"price":{"type":"number","exclusiveMinimum":0}}})",
     R"({"name":1,"price":-1})",
     {R"(string_type|["name"]|Input should be a valid string|null|1)",
      R"(greater_than|["price"]|Input should be greater than 0|{"gt":0}|-1)"}},
};

class ErrorsTest : public ::testing::TestWithParam<ErrorCase> {};

TEST_P(ErrorsTest, ReportsPydanticErrors) {
    const ErrorCase& c = GetParam();
    CompileOptions options;
    options.format_assertion = c.format_assertion;
    Schema schema = testing::compile_text(c.schema, options);
    base::Arena arena;
    json::Value instance = parse_json(c.instance, arena);
    ErrorSink sink;
    bool valid = schema.validate(instance, &sink);
    EXPECT_EQ(valid, c.errors.empty());
    EXPECT_EQ(schema.validate(instance), c.errors.empty());
    EXPECT_EQ(render_all(sink), c.errors);
}

INSTANTIATE_TEST_SUITE_P(Table, ErrorsTest, ::testing::ValuesIn(kCases),
                         [](const ::testing::TestParamInfo<ErrorCase>& info) {
                             std::string name;
                             for (const char* p = info.param.name; *p; ++p)
                                 name.push_back(std::isalnum(static_cast<unsigned char>(*p)) ? *p : '_');
                             return name;
                         });

// CompileOptions::pydantic_int_from_float: pydantic turns an integral float into an int only inside int64.
TEST(ErrorsTest, PydanticIntFromFloatStopsAtInt64) {
    CompileOptions options;
    options.pydantic_int_from_float = true;
    Schema pydantic = testing::compile_text(R"({"type":"integer"})", options);
    Schema plain = testing::compile_text(R"({"type":"integer"})");
    Schema either = testing::compile_text(R"({"type":["integer","number"]})", options);
    const char* kSize = "int_parsing_size|[]|Unable to parse input string as an integer, exceeded maximum size|null|";
    struct Case {
        const char* instance;
        std::string error;  // "" when valid
    } cases[] = {
        {"1e18", ""},
        {"-9.2e18", ""},
        {"1.0", ""},
        {"123456789012345678901234567890", ""},
        {"1e30", std::string(kSize) + "1e+30"},
        {"-1e30", std::string(kSize) + "-1e+30"},
        {"9.3e18", std::string(kSize) + "9.3e+18"},
        {"-9223372036854775808.0", std::string(kSize) + "-9.223372036854776e+18"},
        {"1.5", "int_from_float|[]|Input should be a valid integer, got a number with a fractional part|null|1.5"},
    };
    for (const Case& c : cases) {
        SCOPED_TRACE(c.instance);
        base::Arena arena;
        const json::Value v = parse_json(c.instance, arena);
        ErrorSink sink;
        EXPECT_EQ(pydantic.validate(v, &sink), c.error.empty());
        EXPECT_EQ(pydantic.validate(v), c.error.empty());
        EXPECT_EQ(render_all(sink), c.error.empty() ? std::vector<std::string>{} : std::vector<std::string>{c.error});
        EXPECT_EQ(plain.validate(v), c.error.empty() || c.error.rfind("int_parsing_size", 0) == 0);
        EXPECT_TRUE(either.validate(v));
    }
}

TEST(ErrorsTest, SchemaPathNamesTheKeyword) {
    Schema schema = testing::compile_text(R"({"properties":{"a":{"minLength":2}},"required":["b"]})");
    base::Arena arena;
    ErrorSink sink;
    EXPECT_FALSE(schema.validate(parse_json(R"({"a":"x"})", arena), &sink));
    ASSERT_EQ(sink.size(), 2u);
    EXPECT_EQ(sink.errors()[0].schema_path, "#/required");
    EXPECT_EQ(sink.errors()[1].schema_path, "#/properties/a/minLength");
}

TEST(ErrorsTest, SinkStopsAtItsLimit) {
    Schema schema = testing::compile_text(R"({"items":{"type":"string"}})");
    base::Arena arena;
    ErrorSink sink(3);
    EXPECT_FALSE(schema.validate(parse_json("[1,2,3,4,5,6]", arena), &sink));
    EXPECT_EQ(sink.size(), 3u);
    EXPECT_TRUE(sink.full());
}

TEST(ErrorsTest, RecursionLoopIsAnError) {
    Schema schema = testing::compile_text(R"({"$ref":"#"})");
    base::Arena arena;
    ErrorSink sink;
    EXPECT_FALSE(schema.validate(parse_json("1", arena), &sink));
    ASSERT_EQ(sink.size(), 1u);
    EXPECT_EQ(sink.errors()[0].type, "recursion_loop");
    EXPECT_EQ(sink.errors()[0].msg, "Recursion error - cyclic reference detected");
}

}  // namespace
}  // namespace slipstream::json::schema
