// Tests for JSON Pointer (RFC 6901) formatting, parsing and resolution.
#include "json/pointer.h"

#include <gtest/gtest.h>

#include "json/parse.h"

namespace slipstream::json {
namespace {

TEST(PointerTest, FormatsSegments) {
    Pointer p;
    EXPECT_EQ(p.to_string(), "");
    p.push_key("a/b");
    p.push_index(0);
    p.push_key("m~n");
    p.push_key("");
    p.push_key("\xc3\xa9 x");
    EXPECT_EQ(p.to_string(), "/a~1b/0/m~0n//\xc3\xa9 x");
    EXPECT_EQ(p.size(), 5u);
    p.pop();
    p.pop();
    p.push_index(12);
    std::string out = "loc=";
    p.append_to(out);
    EXPECT_EQ(out, "loc=/a~1b/0/m~0n/12");
    EXPECT_EQ(p.segments()[1], PointerSegment::element(0));
    EXPECT_EQ(p.segments()[0], PointerSegment::member("a/b"));
}

TEST(PointerTest, ParsesTokens) {
    struct Case {
        std::string_view text;
        std::vector<std::string> tokens;
    };
    const Case cases[] = {
        {"", {}},           {"/", {""}},        {"/foo", {"foo"}}, {"/foo/0", {"foo", "0"}},
        {"/a~1b", {"a/b"}}, {"/m~0n", {"m~n"}}, {"/~01", {"~1"}},  {"//x/", {"", "x", ""}},
    };
    for (const Case& c : cases) {
        base::Result<std::vector<std::string>> r = parse_pointer(c.text);
        ASSERT_TRUE(r.is_ok()) << c.text;
        EXPECT_EQ(*r, c.tokens) << c.text;
    }
    for (std::string_view bad : {"foo", "/~", "/~2", "/a~"}) {
        base::Result<std::vector<std::string>> r = parse_pointer(bad);
        EXPECT_FALSE(r.is_ok()) << bad;
        EXPECT_TRUE(r.status().is_invalid_argument());
    }
}

TEST(PointerTest, ResolvesRfc6901Examples) {
    // The example document of RFC 6901 section 5.
    base::Arena arena;
    base::Result<const Value*> doc = parse(R"({"foo":["bar","baz"],"":0,"a/b":1,"c%d":2,"e^f":3,"g|h":4,"i\\j":5,
        "k\"l":6," ":7,"m~n":8})",
                                           arena);
    ASSERT_TRUE(doc.is_ok());
    struct Case {
        std::string_view pointer;
        std::string_view expected;  // "" = the whole document, "-" = nothing
    };
    const Case cases[] = {
        {"/foo/0", "bar"}, {"/foo/1", "baz"}, {"/", "0"},      {"/a~1b", "1"}, {"/c%d", "2"},     {"/e^f", "3"},
        {"/g|h", "4"},     {"/i\\j", "5"},    {"/k\"l", "6"},  {"/ ", "7"},    {"/m~0n", "8"},    {"/foo/2", "-"},
        {"/foo/-", "-"},   {"/foo/01", "-"},  {"/foo/x", "-"}, {"/nope", "-"}, {"/foo/0/x", "-"}, {"x", "-"},
    };
    EXPECT_EQ(resolve_pointer(**doc, ""), *doc);
    for (const Case& c : cases) {
        SCOPED_TRACE(std::string(c.pointer));
        const Value* v = resolve_pointer(**doc, c.pointer);
        if (c.expected == "-") {
            EXPECT_EQ(v, nullptr);
        } else if (v == nullptr) {
            ADD_FAILURE() << "not found";
        } else if (v->is_string()) {
            EXPECT_EQ(v->as_string(), c.expected);
        } else {
            EXPECT_EQ(std::to_string(v->as_int()), c.expected);
        }
    }
}

}  // namespace
}  // namespace slipstream::json
