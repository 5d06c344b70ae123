// Hostile schemas and instances: cycles, deep nesting, huge arrays, evil regexes never hang or crash.
#include <gtest/gtest.h>

#include <string>

#include "json/schema/test_util.h"

namespace slipstream::json::schema {
namespace {

using testing::compile_text;
using testing::parse_json;

std::string nested_arrays(int depth, const std::string& leaf) {
    return std::string(static_cast<std::size_t>(depth), '[') + leaf + std::string(static_cast<std::size_t>(depth), ']');
}

TEST(HostileTest, CyclicRefsFailInsteadOfLooping) {
    const char* schemas[] = {
        R"({"$ref":"#"})",
        R"({"$defs":{"a":{"$ref":"#/$defs/b"},"b":{"$ref":"#/$defs/a"}},"$ref":"#/$defs/a"})",
        R"({"anyOf":[{"$ref":"#"}]})",
        R"({"$dynamicAnchor":"x","$dynamicRef":"#x"})",
    };
    base::Arena arena;
    json::Value instance = parse_json("{}", arena);
    for (const char* text : schemas) {
        Schema schema = compile_text(text);
        EXPECT_FALSE(schema.validate(instance)) << text;
        ErrorSink sink;
        EXPECT_FALSE(schema.validate(instance, &sink)) << text;
        EXPECT_FALSE(sink.empty()) << text;
    }
}

TEST(HostileTest, RecursiveSchemaFollowsDeepInstanceWithinTheLimit) {
    const char* recursive = R"({"type":["array","integer"],"items":{"$ref":"#"}})";
    Schema schema = compile_text(recursive);
    base::Arena arena;
    EXPECT_TRUE(schema.validate(parse_json(nested_arrays(100, "1"), arena)));
    EXPECT_FALSE(schema.validate(parse_json(nested_arrays(100, "\"x\""), arena)));
    // Deeper than max_depth (256 node entries) is refused, not a stack overflow.
    EXPECT_FALSE(schema.validate(parse_json(nested_arrays(1000, "1"), arena)));
    CompileOptions options;
    options.max_depth = 1000;           // two node entries per level: the array node and its $ref
    options.max_stack_bytes = 6 << 20;  // sanitizer builds use several KiB of stack per level
    EXPECT_TRUE(compile_text(recursive, options).validate(parse_json(nested_arrays(300, "1"), arena)));
}

TEST(HostileTest, StackBudgetHoldsWhateverMaxDepthSays) {
    CompileOptions options;
    options.max_depth = 1'000'000;
    options.max_stack_bytes = 64 * 1024;
    Schema schema = compile_text(R"({"type":["array","integer"],"items":{"$ref":"#"}})", options);
    base::Arena arena;
    ErrorSink sink;
    EXPECT_FALSE(schema.validate(parse_json(nested_arrays(1900, "1"), arena), &sink));
    ASSERT_EQ(sink.size(), 1u);
    EXPECT_EQ(sink.errors()[0].type, "recursion_loop");
}

TEST(HostileTest, DeeplyNestedSchemaIsACompileError) {
    std::string text;
    for (int i = 0; i < 600; ++i)
        text += R"({"not":)";
    text += "{}";
    for (int i = 0; i < 600; ++i)
        text += "}";
    EXPECT_THROW(compile_text(text), SchemaError);
}

TEST(HostileTest, UniqueItemsOnHugeArraysIsNotQuadratic) {
    std::string distinct = "[", with_duplicate;
    for (int i = 0; i < 200000; ++i)
        distinct.append(i ? "," : "").append(std::to_string(i));
    with_duplicate = distinct + ",123456]";
    distinct += "]";
    Schema schema = compile_text(R"({"uniqueItems":true})");
    base::Arena arena;
    json::ParseOptions big;
    big.max_members = 1'000'000;
    auto parse_big = [&](const std::string& text) { return *json::parse(text, arena, big).value(); };
    EXPECT_TRUE(schema.validate(parse_big(distinct)));
    ErrorSink sink;
    EXPECT_FALSE(schema.validate(parse_big(with_duplicate), &sink));
    ASSERT_EQ(sink.size(), 1u);
    EXPECT_EQ(sink.errors()[0].loc[0].index, 200000);
    EXPECT_EQ(testing::to_json(sink.errors()[0].ctx), R"({"duplicate_of":123456})");
}

TEST(HostileTest, UniqueItemsOnManyEqualObjects) {
    std::string text = "[";
    for (int i = 0; i < 5000; ++i)
        text += std::string(i ? "," : "") + R"({"a":[1,{"b":)" + std::to_string(i) + "}]}";
    text += "]";
    Schema schema = compile_text(R"({"uniqueItems":true})");
    base::Arena arena;
    EXPECT_TRUE(schema.validate(parse_json(text, arena)));
}

TEST(HostileTest, EvilRegexRunsInLinearTime) {
    // Catastrophic for backtracking engines: exponential in the input length. RE2 is linear.
    Schema schema = compile_text(R"({"pattern":"^(a+)+$"})");
    std::string evil = std::string("\"").append(100000, 'a').append("!\"");
    base::Arena arena;
    EXPECT_FALSE(schema.validate(parse_json(evil, arena)));
    Schema nested = compile_text(R"({"patternProperties":{"^(a|a)*$":{"type":"integer"}}})");
    std::string key = std::string("{\"").append(50000, 'a').append("\":\"x\"}");
    EXPECT_FALSE(nested.validate(parse_json(key, arena)));
}

TEST(HostileTest, UnsupportedRegexFeaturesAreCompileErrors) {
    const char* patterns[] = {"(?=a)b", "(?!a)b", "(?<=a)b", "(?<!a)b", "(a)\\1", "(?<n>a)\\k<n>"};
    for (const char* p : patterns) {
        std::string schema = std::string(R"({"pattern":)") + testing::to_json(json::Value::string(p)) + "}";
        try {
            compile_text(schema);
            ADD_FAILURE() << "compiled " << p;
        } catch (const SchemaError& e) {
            EXPECT_EQ(e.location(), "#/pattern");
            EXPECT_NE(e.reason().find("not supported"), std::string::npos) << e.reason();
        }
    }
    EXPECT_THROW(compile_text(R"({"pattern":"((a{1000}){1000}){1000}"})"), SchemaError);
    EXPECT_THROW(compile_text(R"({"pattern":"a{1001}"})"), SchemaError);
}

TEST(HostileTest, ManyAlternativesAndHugeEnumsStayFast) {
    std::string any = R"({"anyOf":[)";
    for (int i = 0; i < 2000; ++i)
        any += std::string(i ? "," : "") + R"({"const":)" + std::to_string(i) + "}";
    any += "]}";
    std::string en = R"({"enum":[)";
    for (int i = 0; i < 20000; ++i)
        en += std::string(i ? "," : "") + "\"v" + std::to_string(i) + "\"";
    en += "]}";
    base::Arena arena;
    EXPECT_TRUE(compile_text(any).validate(parse_json("1999", arena)));
    EXPECT_FALSE(compile_text(any).validate(parse_json("2000", arena)));
    EXPECT_TRUE(compile_text(en).validate(parse_json("\"v19999\"", arena)));
    EXPECT_FALSE(compile_text(en).validate(parse_json("\"v20000\"", arena)));
}

TEST(HostileTest, HugeNumbersAndMultipleOf) {
    base::Arena arena;
    EXPECT_FALSE(compile_text(R"({"multipleOf":0.123456789})").validate(parse_json("1e308", arena)));
    EXPECT_TRUE(compile_text(R"({"multipleOf":0.5})").validate(parse_json("1e308", arena)));
    EXPECT_FALSE(compile_text(R"({"multipleOf":1e300})").validate(parse_json("1e-300", arena)));
    EXPECT_TRUE(compile_text(R"({"multipleOf":3})").validate(parse_json("18446744073709551615", arena)));
}

}  // namespace
}  // namespace slipstream::json::schema
