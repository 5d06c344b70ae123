// LaxPlan: pydantic's lax conversions of body values (expected values checked against pydantic 2.14).
#include "server/validation/lax_plan.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "json/parse.h"
#include "json/writer.h"

namespace slipstream::server::detail {
namespace {

struct LaxCase {
    const char* schema;
    const char* input;
    const char* expected;               // the converted value; "" when convert() reports no change
    std::vector<std::string> failures;  // "loc|type", loc as a JSON array
};

const json::Value& parse(const char* text, base::Arena& arena) {
    auto parsed = json::parse(text, arena);
    EXPECT_TRUE(parsed.is_ok()) << text;
    return **parsed;
}

std::string to_json(const json::Value& v) {
    std::string out;
    json::Writer w(out);
    EXPECT_TRUE(w.write_value(v).is_ok());
    return out;
}

std::string render(const LaxFailure& f) {
    std::string out;
    json::Writer w(out);
    w.begin_array();
    for (const json::schema::PathSegment& seg : f.loc) {
        if (seg.is_index())
            w.int64(seg.index);
        else
            w.string(seg.key);
    }
    w.end_array();
    return out + "|" + std::string(f.type);
}

const char* kModel =
    R"({"type":"object","properties":{"n":{"type":"integer"},"f":{"type":"number"},"b":{"type":"boolean"},"s":{"type":"string"},"o":{"anyOf":[{"type":"integer"},{"type":"null"}]}}})";

const LaxCase kCases[] = {
    {R"({"type":"number"})", R"("2.5")", "2.5", {}},
    {R"({"type":"number"})", R"(" 1_0 ")", "10.0", {}},
    {R"({"type":"number"})", "true", "1.0", {}},
    {R"({"type":"number"})", "2", "", {}},  // valid as is: the handler's plan makes it a float
    {R"({"type":"number"})", R"("x")", R"("x")", {"[]|float_parsing"}},
    {R"({"type":"integer"})", R"("1")", "1", {}},
    {R"({"type":"integer"})", R"("1.0")", "1", {}},
    {R"({"type":"integer"})", "false", "0", {}},
    {R"({"type":"integer"})", R"("1e3")", R"("1e3")", {"[]|int_parsing"}},
    // Beyond 64 bits: an exact Python int, as pydantic's; past 4300 digits "int_parsing_size".
    {R"({"type":"integer"})", R"("99999999999999999999")", "99999999999999999999", {}},
    {R"({"type":"integer"})", R"("-123456789012345678901234567890")", "-123456789012345678901234567890", {}},
    {R"({"type":"boolean"})", "1", "true", {}},
    {R"({"type":"boolean"})", "0.0", "false", {}},
    {R"({"type":"boolean"})", R"("yes")", "true", {}},
    {R"({"type":"boolean"})", "2", "2", {"[]|bool_parsing"}},
    {R"({"type":"boolean"})", "0.5", "", {}},                   // pydantic: bool_type, as the validator says
    {R"({"type":"string"})", "1", "", {}},                      // numbers never become strings
    {R"({"enum":[1,2],"type":"integer"})", R"("1")", "1", {}},  // an IntEnum parses strings
    {R"({"enum":[1,2],"type":"integer","x-slipstream-literal":true})", R"("1")", "", {}},  // a Literal does not
    {R"({"enum":[1,2],"type":"integer","x-slipstream-literal":true})", "true", "1", {}},
    {R"({"enum":[1,2],"type":"integer"})", R"("x")", "", {}},  // pydantic reports "enum" only
    {kModel,
     R"({"n":"3","f":"0.5","b":"off","s":"t","o":"7","x":"1"})",
     R"({"n":3,"f":0.5,"b":false,"s":"t","o":7,"x":"1"})",
     {}},
    {kModel, R"({"n":"a","o":"b"})", R"({"n":"a","o":"b"})", {R"(["n"]|int_parsing)", R"(["o"]|int_parsing)"}},
    {R"({"type":"array","items":{"type":"integer"}})", R"([1,"2","x"])", R"([1,2,"x"])", {"[2]|int_parsing"}},
    {R"({"type":"array","prefixItems":[{"type":"integer"},{"type":"string"}]})", R"(["1","2"])", R"([1,"2"])", {}},
    {R"({"type":"object","additionalProperties":{"type":"number"}})", R"({"a":"1"})", R"({"a":1.0})", {}},
    {R"({"anyOf":[{"type":"integer"},{"type":"string"}]})", R"("5")", "", {}},  // the exact type wins
    {R"({"anyOf":[{"type":"integer"},{"type":"boolean"}]})", R"("yes")", "true", {}},
    {R"({"anyOf":[{"type":"integer"},{"type":"boolean"}]})", R"("x")", "", {}},  // a real union: branch errors
    {R"({"$ref":"#/$defs/N","$defs":{"N":{"type":"object","properties":{"v":{"type":"integer"},"next":{"anyOf":[{"$ref":"#/$defs/N"},{"type":"null"}]}}}}})",
     R"({"v":"1","next":{"v":"2","next":null}})",
     R"({"v":1,"next":{"v":2,"next":null}})",
     {}},
};

class LaxPlanTest : public ::testing::TestWithParam<LaxCase> {};

TEST_P(LaxPlanTest, ConvertsLikePydantic) {
    const LaxCase& c = GetParam();
    base::Arena arena;
    LaxPlan plan(parse(c.schema, arena));
    json::Value out;
    std::vector<LaxFailure> failures;
    bool changed = plan.convert(parse(c.input, arena), arena, &out, &failures);
    EXPECT_EQ(changed, *c.expected != '\0') << c.schema << " " << c.input;
    if (changed) {
        EXPECT_EQ(to_json(out), c.expected) << c.schema << " " << c.input;
    }
    std::vector<std::string> got;
    for (const LaxFailure& f : failures)
        got.push_back(render(f));
    EXPECT_EQ(got, c.failures) << c.schema << " " << c.input;
}

INSTANTIATE_TEST_SUITE_P(Table, LaxPlanTest, ::testing::ValuesIn(kCases));

TEST(LaxPlanTest, MarksLiteralEnums) {
    base::Arena arena;
    LaxPlan plan(parse(
        R"({"type":"object","properties":{"m":{"enum":["a","b"],"type":"string","x-slipstream-literal":true},"c":{"enum":["r","g"]}}})",
        arena));
    EXPECT_TRUE(plan.is_literal_enum("#/properties/m/enum"));
    EXPECT_FALSE(plan.is_literal_enum("#/properties/c/enum"));
}

}  // namespace
}  // namespace slipstream::server::detail
