// JSON Merge Patch: RFC 7396 Appendix A, table-driven, plus refusals.
#include "agent/sessions/json_merge_patch.h"

#include <gtest/gtest.h>

namespace slipstream::agent::sessions {
namespace {

TEST(JsonMergePatch, Rfc7396AppendixA) {
    struct Case {
        const char* target;
        const char* patch;
        const char* result;
    };
    const Case kCases[] = {
        {R"({"a":"b"})", R"({"a":"c"})", R"({"a":"c"})"},
        {R"({"a":"b"})", R"({"b":"c"})", R"({"a":"b","b":"c"})"},
        {R"({"a":"b"})", R"({"a":null})", R"({})"},
        {R"({"a":"b","b":"c"})", R"({"a":null})", R"({"b":"c"})"},
        {R"({"a":["b"]})", R"({"a":"c"})", R"({"a":"c"})"},
        {R"({"a":"c"})", R"({"a":["b"]})", R"({"a":["b"]})"},
        {R"({"a":{"b":"c"}})", R"({"a":{"b":"d","c":null}})", R"({"a":{"b":"d"}})"},
        {R"({"a":[{"b":"c"}]})", R"({"a":[1]})", R"({"a":[1]})"},
        {R"(["a","b"])", R"(["c","d"])", R"(["c","d"])"},
        {R"({"a":"b"})", R"(["c"])", R"(["c"])"},
        {R"({"a":"foo"})", "null", "null"},
        {R"({"a":"foo"})", R"("bar")", R"("bar")"},
        {R"({"e":null})", R"({"a":1})", R"({"e":null,"a":1})"},
        {R"([1,2])", R"({"a":"b","c":null})", R"({"a":"b"})"},
        {"{}", R"({"a":{"bb":{"ccc":null}}})", R"({"a":{"bb":{}}})"},
        {R"({ "x" : 1 , "y" : {"z": 2} })", R"({"y":{"w":3}})", R"({"x":1,"y":{"z":2,"w":3}})"},
    };
    for (const Case& c : kCases) {
        base::Result<std::string> merged = apply_merge_patch(c.target, c.patch);
        ASSERT_TRUE(merged.is_ok()) << c.target << " + " << c.patch << ": " << merged.status().to_string();
        EXPECT_EQ(*merged, c.result) << c.target << " + " << c.patch;
    }
}

TEST(JsonMergePatch, RefusesTextThatIsNotJson) {
    base::Result<std::string> bad_patch = apply_merge_patch("{}", "{a:1}");
    ASSERT_FALSE(bad_patch.is_ok());
    EXPECT_TRUE(bad_patch.status().is_invalid_argument());
    EXPECT_EQ(bad_patch.status().message().rfind("the patch is not JSON", 0), 0u);
    base::Result<std::string> bad_target = apply_merge_patch("[", "{}");
    ASSERT_FALSE(bad_target.is_ok());
    EXPECT_EQ(bad_target.status().message().rfind("the document is not JSON", 0), 0u);
    EXPECT_TRUE(apply_merge_patch("{}", std::string(70, '[') + std::string(70, ']')).status().is_out_of_range());
}

TEST(JsonMergePatch, CompactJson) {
    EXPECT_EQ(*compact_json(" { \"a\" : [ 1 , 2.5 , \"\\u00e9\" ] } "), "{\"a\":[1,2.5,\"\xc3\xa9\"]}");
    EXPECT_FALSE(compact_json("").is_ok());
    EXPECT_FALSE(compact_json("{} {}").is_ok());
}

}  // namespace
}  // namespace slipstream::agent::sessions
