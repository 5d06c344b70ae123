// Tests of x-mcp-header: the annotations a schema may carry, and the comparison with a call's arguments.
#include "agent/mcp/header_params.h"

#include <gtest/gtest.h>

#include <map>
#include <stdexcept>
#include <string>

#include "agent/mcp/jsonrpc.h"

namespace slipstream::mcp::detail {
namespace {

TEST(McpHeaderParams, AnnotationsOnPropertiesChainsAreFoundOthersRefused) {
    const auto found =
        header_params("t", R"({"type":"object","properties":{"region":{"type":"string","x-mcp-header":"Region"},)"
                           R"("opts":{"type":"object","properties":{"n":{"type":"integer","x-mcp-header":"N"}}}}})");
    ASSERT_EQ(found.size(), 2u);
    EXPECT_EQ(found[0].name, "Region");
    EXPECT_EQ(found[1].path, (std::vector<std::string>{"opts", "n"}));
    for (const char* bad : {
             R"({"properties":{"a":{"type":"number","x-mcp-header":"A"}}})",    // a number
             R"({"properties":{"a":{"type":"string","x-mcp-header":""}}})",     // empty
             R"({"properties":{"a":{"type":"string","x-mcp-header":"A B"}}})",  // not a token
             R"({"properties":{"a":{"type":"string","x-mcp-header":"A"},"b":{"type":"string","x-mcp-header":"a"}}})",
             R"({"properties":{"a":{"type":"array","items":{"type":"string","x-mcp-header":"A"}}}})",  // via items
             R"({"anyOf":[{"properties":{"a":{"type":"string","x-mcp-header":"A"}}}]})",               // via anyOf
             R"({"type":"string","x-mcp-header":"Root"})",                                             // the root
         })
        EXPECT_THROW(header_params("t", bad), std::invalid_argument) << bad;
}

TEST(McpHeaderParams, HeadersMustMirrorTheArguments) {
    const auto params = header_params(
        "t", R"({"properties":{"region":{"type":"string","x-mcp-header":"Region"},)"
             R"("n":{"type":"integer","x-mcp-header":"N"},"on":{"type":"boolean","x-mcp-header":"On"}}})");
    Document doc;
    const json::Value* args = json::parse(R"({"region":"Hello","n":42,"on":true})", doc.arena).value();
    const auto check = [&](std::map<std::string, std::string> headers) {
        return header_params_mismatch(params, *args, [&](std::string_view name) -> std::optional<std::string_view> {
            auto it = headers.find(std::string(name));
            if (it == headers.end()) return std::nullopt;
            return std::string_view(it->second);
        });
    };
    EXPECT_EQ(check({{"Mcp-Param-Region", "Hello"}, {"Mcp-Param-N", "42.0"}, {"Mcp-Param-On", "true"}}), "");
    EXPECT_EQ(check({{"Mcp-Param-Region", "=?base64?SGVsbG8=?="}, {"Mcp-Param-N", "42"}, {"Mcp-Param-On", "true"}}),
              "");
    EXPECT_NE(check({{"Mcp-Param-N", "42"}, {"Mcp-Param-On", "true"}}).find("Mcp-Param-Region is required"),
              std::string::npos);
    EXPECT_NE(check({{"Mcp-Param-Region", "=?base64?SGVsbG8?="}, {"Mcp-Param-N", "42"}, {"Mcp-Param-On", "true"}})
                  .find("invalid"),
              std::string::npos);  // bad padding
    EXPECT_NE(
        check({{"Mcp-Param-Region", "Hello"}, {"Mcp-Param-N", "43"}, {"Mcp-Param-On", "true"}}).find("does not match"),
        std::string::npos);
    // Without the sentinel's both ends the value is literal.
    EXPECT_NE(check({{"Mcp-Param-Region", "SGVsbG8="}, {"Mcp-Param-N", "42"}, {"Mcp-Param-On", "true"}}), "");
    // No value in the arguments: no header expected.
    const json::Value* none = json::parse(R"({})", doc.arena).value();
    EXPECT_EQ(header_params_mismatch(params, *none, [](std::string_view) { return std::nullopt; }), "");
}

}  // namespace
}  // namespace slipstream::mcp::detail
