// Tool calls: the parser over model outputs, the schema of a forced call, the prompt text.
#include "agent/infer/tool_calls.h"

#include <gtest/gtest.h>

#include "agent/structured/compiled_schema.h"

namespace slipstream::agent::infer {
namespace {

TEST(ToolCalls, ParsesBlocksAndKeepsTheRestAsContent) {
    ParsedOutput p = parse_tool_calls(
        "Let me check.\n<tool_call>\n{\"name\": \"weather\", \"arguments\": {\"city\": \"Paris\"}}\n</tool_call>\n"
        "<tool_call>{\"name\":\"time\",\"parameters\":{\"tz\":\"UTC\"}}</tool_call>",
        false);
    ASSERT_EQ(p.calls.size(), 2u);
    EXPECT_EQ(p.calls[0].name, "weather");
    EXPECT_EQ(p.calls[0].arguments_json, R"({"city":"Paris"})");
    EXPECT_EQ(p.calls[1].name, "time");
    EXPECT_EQ(p.calls[1].arguments_json, R"({"tz":"UTC"})");
    EXPECT_EQ(p.content, "Let me check.");
    EXPECT_EQ(p.calls[0].id.size(), 29u);
    EXPECT_EQ(p.calls[0].id.rfind("call_", 0), 0u);
    EXPECT_NE(p.calls[0].id, p.calls[1].id);
}

TEST(ToolCalls, BlocksThatAreNotCallsStayText) {
    const std::string text = "a <tool_call>not json</tool_call> b <tool_call>{\"arguments\":{}}</tool_call>";
    ParsedOutput p = parse_tool_calls(text, false);
    EXPECT_TRUE(p.calls.empty());
    EXPECT_EQ(p.content, text);
}

TEST(ToolCalls, AnUnclosedLastBlockCountsWhenItsJsonIsWhole) {
    ParsedOutput p = parse_tool_calls("<tool_call>{\"name\":\"f\",\"arguments\":{\"x\":1}}", false);
    ASSERT_EQ(p.calls.size(), 1u);
    EXPECT_EQ(p.calls[0].arguments_json, R"({"x":1})");
    EXPECT_TRUE(parse_tool_calls("<tool_call>{\"name\":\"f\",\"argu", false).calls.empty());
}

TEST(ToolCalls, ArgumentsWrittenAsAStringAreParsed) {
    ParsedOutput p = parse_tool_calls(R"({"name":"f","arguments":"{\"a\": [1, 2]}"})", true);
    ASSERT_EQ(p.calls.size(), 1u);
    EXPECT_EQ(p.calls[0].arguments_json, R"({"a":[1,2]})");
    EXPECT_TRUE(parse_tool_calls(R"({"name":"f","arguments":"[1]"})", true).calls.empty());
    EXPECT_TRUE(parse_tool_calls(R"({"name":"f","arguments":3})", true).calls.empty());
}

TEST(ToolCalls, WholeOutputAsOneCall) {
    ParsedOutput p = parse_tool_calls(" {\"name\":\"f\",\"arguments\":{}} ", true);
    ASSERT_EQ(p.calls.size(), 1u);
    EXPECT_EQ(p.calls[0].arguments_json, "{}");
    ParsedOutput cut = parse_tool_calls("{\"name\":\"f\",\"argum", true);
    EXPECT_TRUE(cut.calls.empty());
    EXPECT_EQ(cut.content, "{\"name\":\"f\",\"argum");
}

TEST(ToolCalls, ForcedCallSchemaAcceptsOnlyTheNamedToolsArguments) {
    const std::vector<ToolSpec> tools = {
        {"weather", "", R"({"type":"object","properties":{"city":{"type":"string"}},"required":["city"]})"},
        {"time", "", R"({"type":"object","properties":{"tz":{"type":"string"}}})"}};
    const std::string name = "weather";
    auto one = structured::CompiledSchema::create(tool_call_schema(tools, &name));
    ASSERT_TRUE(one.is_ok()) << one.status().message();
    EXPECT_TRUE((*one)->accepts(R"({"name":"weather","arguments":{"city":"Oslo"}})"));
    EXPECT_FALSE((*one)->accepts(R"({"name":"weather","arguments":{}})"));
    EXPECT_FALSE((*one)->accepts(R"({"name":"time","arguments":{}})"));
    auto any = structured::CompiledSchema::create(tool_call_schema(tools, nullptr));
    ASSERT_TRUE(any.is_ok()) << any.status().message();
    EXPECT_TRUE((*any)->accepts(R"({"name":"time","arguments":{}})"));
    EXPECT_FALSE((*any)->accepts(R"({"name":"other","arguments":{}})"));
}

TEST(ToolCalls, PromptListsEveryToolAndTheCallFormat) {
    const std::string prompt = tools_system_prompt({{"weather", "Current weather", R"({"type":"object"})"}});
    EXPECT_NE(prompt.find(R"({"type":"function","function":{"name":"weather","description":"Current weather",)"
                          R"("parameters":{"type":"object"}}})"),
              std::string::npos);
    EXPECT_NE(prompt.find("<tool_call>"), std::string::npos);
    EXPECT_EQ(render_tool_calls({{"call_1", "f", R"({"a":1})"}}),
              "<tool_call>\n{\"name\":\"f\",\"arguments\":{\"a\":1}}\n</tool_call>");
    EXPECT_EQ(render_tool_response("42"), "<tool_response>\n42\n</tool_response>");
}

}  // namespace
}  // namespace slipstream::agent::infer
