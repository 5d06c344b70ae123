// compile() errors, resolver and base URI use, thread safety, and allocation-free validation.
#include "json/schema/schema.h"

#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <new>
#include <thread>

#include "json/schema/test_util.h"

// Counts heap allocations made by the current thread while `g_counting` is set. Sanitizers bring
// their own operator new, so the count is only available in plain builds.
#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define SLIPSTREAM_NO_ALLOCATION_COUNT 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define SLIPSTREAM_NO_ALLOCATION_COUNT 1
#endif

namespace {
thread_local bool g_counting = false;
thread_local std::size_t g_allocations = 0;
}  // namespace

#ifndef SLIPSTREAM_NO_ALLOCATION_COUNT
// noinline: g++ would otherwise pair the inlined free() with `new` and warn (-Wmismatched-new-delete).
[[gnu::noinline]] void* operator new(std::size_t n) {
    if (g_counting) ++g_allocations;
    if (void* p = std::malloc(n ? n : 1)) return p;
    throw std::bad_alloc();
}
[[gnu::noinline]] void operator delete(void* p) noexcept {
    std::free(p);
}
[[gnu::noinline]] void operator delete(void* p, std::size_t) noexcept {
    std::free(p);
}
#endif

namespace slipstream::json::schema {
namespace {

using testing::compile_text;
using testing::parse_json;

std::size_t allocations_during(const std::function<void()>& f) {
    g_allocations = 0;
    g_counting = true;
    f();
    g_counting = false;
    return g_allocations;
}

struct CompileErrorCase {
    const char* schema;
    const char* location;
    const char* reason_part;
};

const CompileErrorCase kCompileErrors[] = {
    {R"({"minLength":-1})", "#/minLength", "non-negative integer"},
    {R"({"properties":{"a":{"maxItems":"x"}}})", "#/properties/a/maxItems", "non-negative integer"},
    {R"({"type":"str"})", "#/type", "unknown type 'str'"},
    {R"({"minimum":"0"})", "#/minimum", "must be a number"},
    {R"({"multipleOf":0})", "#/multipleOf", "greater than 0"},
    {R"({"required":[1]})", "#/required", "array of strings"},
    {R"({"allOf":[]})", "#/allOf", "non-empty array"},
    {R"({"items":[{}]})", "#/items", "prefixItems"},
    {R"({"properties":{"a":1}})", "#/properties/a", "object or a boolean"},
    {R"({"$ref":"#/$defs/missing"})", "#/$ref", "does not exist"},
    {R"({"$ref":"#nope"})", "#/$ref", "no anchor 'nope'"},
    {R"({"$ref":"http://example.com/x.json"})", "#/$ref", "resolver has no such document"},
    {R"({"$schema":"http://json-schema.org/draft-04/schema#"})", "#/$schema", "unsupported $schema"},
    {R"j({"pattern":"(?=a)"})j", "#/pattern", "lookahead is not supported"},
    {R"({"patternProperties":{"[":{}}})", "#/patternProperties/[", "unterminated character class"},
};

TEST(SchemaTest, CompileErrorsArePrecise) {
    for (const CompileErrorCase& c : kCompileErrors) {
        try {
            compile_text(c.schema);
            ADD_FAILURE() << "compiled: " << c.schema;
        } catch (const SchemaError& e) {
            EXPECT_EQ(e.location(), c.location) << c.schema;
            EXPECT_NE(e.reason().find(c.reason_part), std::string::npos) << c.schema << " -> " << e.what();
        }
    }
}

TEST(SchemaTest, BooleanSchemasAndDefault) {
    base::Arena arena;
    json::Value v = parse_json(R"({"a":1})", arena);
    EXPECT_TRUE(compile(json::Value::boolean(true)).validate(v));
    EXPECT_FALSE(compile(json::Value::boolean(false)).validate(v));
    EXPECT_TRUE(Schema().validate(v));
    EXPECT_FALSE(Schema().compiled());
}

TEST(SchemaTest, DraftFromSchemaKeywordOrOptions) {
    EXPECT_EQ(compile_text("{}").draft(), Draft::kDraft2020_12);
    EXPECT_EQ(compile_text(R"({"$schema":"http://json-schema.org/draft-07/schema#"})").draft(), Draft::kDraft7);
    CompileOptions seven;
    seven.default_draft = Draft::kDraft7;
    Schema tuple = compile_text(R"({"items":[{"type":"integer"}],"additionalItems":false})", seven);
    base::Arena arena;
    EXPECT_TRUE(tuple.validate(parse_json("[1]", arena)));
    EXPECT_FALSE(tuple.validate(parse_json("[1,2]", arena)));
}

TEST(SchemaTest, ResolverAndBaseUri) {
    std::vector<std::string> asked;
    CompileOptions options;
    options.base_uri = "https://api.example/schemas/root.json";
    options.resolver = [&asked](std::string_view uri) -> std::optional<std::string> {
        asked.emplace_back(uri);
        if (uri == "https://api.example/schemas/common.json") return R"({"$defs":{"id":{"type":"integer"}}})";
        return std::nullopt;
    };
    Schema schema = compile_text(R"({"properties":{"id":{"$ref":"common.json#/$defs/id"}}})", options);
    EXPECT_EQ(asked, std::vector<std::string>{"https://api.example/schemas/common.json"});
    base::Arena arena;
    EXPECT_TRUE(schema.validate(parse_json(R"({"id":1})", arena)));
    ErrorSink sink;
    EXPECT_FALSE(schema.validate(parse_json(R"({"id":"x"})", arena), &sink));
    ASSERT_EQ(sink.size(), 1u);
    EXPECT_EQ(sink.errors()[0].schema_path, "https://api.example/schemas/common.json#/$defs/id/type");
}

TEST(SchemaTest, SelfReferentialMetaschemaIsAnError) {
    CompileOptions options;
    options.resolver = [](std::string_view uri) -> std::optional<std::string> {
        if (uri == "http://x/meta") return R"({"$schema":"http://x/meta","$vocabulary":{}})";
        return std::nullopt;
    };
    try {
        compile_text(R"({"$schema":"http://x/meta"})", options);
        ADD_FAILURE() << "compiled";
    } catch (const SchemaError& e) {
        EXPECT_EQ(e.reason(), "'http://x/meta' refers to itself as its $schema");
    }
}

TEST(SchemaTest, MetaschemaIsBuiltIn) {
    Schema meta = compile_text(R"({"$ref":"https://json-schema.org/draft/2020-12/schema"})");
    base::Arena arena;
    EXPECT_TRUE(meta.validate(parse_json(R"({"type":"object","properties":{"a":{"minimum":1}}})", arena)));
    EXPECT_FALSE(meta.validate(parse_json(R"({"type":"object","properties":{"a":{"minimum":"1"}}})", arena)));
    Schema meta7 = compile_text(R"({"$ref":"http://json-schema.org/draft-07/schema#"})");
    EXPECT_FALSE(meta7.validate(parse_json(R"({"minLength":-1})", arena)));
}

TEST(SchemaTest, CompiledSchemaOwnsItsCopy) {
    Schema schema;
    {
        base::Arena arena;
        schema = compile(parse_json(R"({"enum":["alpha","beta"],"pattern":"^[ab]"})", arena));
    }  // the source document is gone
    base::Arena arena;
    EXPECT_TRUE(schema.validate(parse_json(R"("beta")", arena)));
    EXPECT_FALSE(schema.validate(parse_json(R"("gamma")", arena)));
}

TEST(SchemaTest, ValidatesConcurrentlyFromManyThreads) {
    Schema schema = compile_text(R"({"type":"object","required":["n"],"properties":{"n":{"type":"integer","minimum":0},
        "tags":{"type":"array","items":{"type":"string","pattern":"^[a-z]+$"},"uniqueItems":true}},
        "unevaluatedProperties":false,"$defs":{"x":{"$dynamicAnchor":"x"}}})");
    base::Arena arena;
    json::Value good = parse_json(R"({"n":3,"tags":["a","b"]})", arena);
    json::Value bad = parse_json(R"({"n":-1,"tags":["a","a"],"z":0})", arena);
    std::atomic<int> mismatches{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < 8; ++t)
        threads.emplace_back([&] {
            for (int i = 0; i < 2000; ++i) {
                ErrorSink sink;
                if (!schema.validate(good) || schema.validate(bad, &sink) || sink.size() != 3) ++mismatches;
            }
        });
    for (auto& t : threads)
        t.join();
    EXPECT_EQ(mismatches.load(), 0);
}

TEST(SchemaTest, ValidInputAllocatesNothing) {
#ifdef SLIPSTREAM_NO_ALLOCATION_COUNT
    GTEST_SKIP() << "allocation counting needs the plain operator new (not available under sanitizers)";
#endif
    CompileOptions formats;
    formats.format_assertion = true;
    Schema schema = compile_text(R"({
        "type":"object","required":["name","price"],
        "properties":{"name":{"type":"string","minLength":1,"pattern":"^[a-z]+$"},"price":{"type":"number","exclusiveMinimum":0},
                      "tags":{"type":"array","items":{"type":"string"},"uniqueItems":true},
                      "kind":{"enum":["a","b"]},"when":{"format":"date-time"}},
        "allOf":[{"properties":{"extra":{"type":"integer"}}}],
        "anyOf":[{"required":["id"]},{"required":["name"]}],
        "unevaluatedProperties":false})",
                                 formats);
    base::Arena arena;
    json::Value body = parse_json(
        R"({"name":"x","price":1.5,"tags":["a","b","c"],"kind":"a","extra":1,"when":"2020-01-01T00:00:00Z"})", arena);
    ASSERT_TRUE(schema.validate(body));
    EXPECT_EQ(allocations_during([&] { EXPECT_TRUE(schema.validate(body)); }), 0u);
    ErrorSink sink;
    EXPECT_EQ(allocations_during([&] { EXPECT_TRUE(schema.validate(body, &sink)); }), 0u);
    // An invalid body with a sink does allocate (the error list), and only then.
    json::Value bad = parse_json(R"({"name":"","price":0})", arena);
    EXPECT_GT(allocations_during([&] { EXPECT_FALSE(schema.validate(bad, &sink)); }), 0u);
    EXPECT_EQ(allocations_during([&] { EXPECT_FALSE(schema.validate(bad)); }), 0u);
}

}  // namespace
}  // namespace slipstream::json::schema
