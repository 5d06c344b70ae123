// append_indented(): the layout of Python's json.dumps(indent=2) / pydantic's to_json(indent=2).
#include "json/indent.h"

#include <gtest/gtest.h>

#include <string>

namespace slipstream::json {
namespace {

std::string indented(std::string_view text, std::size_t width = 2) {
    std::string out;
    append_indented(text, width, out);
    return out;
}

TEST(IndentTest, NestedMembersElementsAndEmptyContainers) {
    EXPECT_EQ(indented(R"({"a":[1,{"b":null}],"c":{},"d":[],"e":"x"})"),
              "{\n  \"a\": [\n    1,\n    {\n      \"b\": null\n    }\n  ],\n  \"c\": {},\n  \"d\": [],\n"
              "  \"e\": \"x\"\n}");
    EXPECT_EQ(indented("[]"), "[]");
    EXPECT_EQ(indented("{ }"), "{}");
    EXPECT_EQ(indented("3.5"), "3.5");
    EXPECT_EQ(indented(R"([true,false])", 4), "[\n    true,\n    false\n]");
}

TEST(IndentTest, StringsPassThroughWithTheirEscapesAndBrackets) {
    EXPECT_EQ(indented(R"({"k,:{":"a \"[b]\", c\\","u":"\u00e9"})"),
              "{\n  \"k,:{\": \"a \\\"[b]\\\", c\\\\\",\n  \"u\": \"\\u00e9\"\n}");
}

TEST(IndentTest, WhitespaceBetweenTokensIsDropped) {
    EXPECT_EQ(indented(" { \"a\" :\n [ 1 , 2 ] } "), "{\n  \"a\": [\n    1,\n    2\n  ]\n}");
}

TEST(IndentTest, TruncatedInputEndsWithoutReadingPastIt) {
    EXPECT_EQ(indented(R"({"a":"unterminated)"), "{\n  \"a\": \"unterminated");
    EXPECT_EQ(indented(R"(["x\)"), "[\n  \"x\\");
    EXPECT_EQ(indented("]]"), "\n]\n]");
}

}  // namespace
}  // namespace slipstream::json
