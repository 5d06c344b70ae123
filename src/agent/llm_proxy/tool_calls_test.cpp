// ToolCallStreams and compile_tool_schemas: tool definitions read and refused, argument pieces split anywhere
// (before the name too), early failures with their pointers, a whole message's calls, the calls written out.
#include "agent/llm_proxy/tool_calls.h"

#include <gtest/gtest.h>

#include <string>

#include "base/arena.h"
#include "json/parse.h"

namespace slipstream::agent::llm_proxy {
namespace {

constexpr const char* kRequest =
    R"({"messages":[],"tools":[{"type":"function","function":{"name":"get_weather","parameters":{"type":"object",)"
    R"("properties":{"city":{"type":"string","maxLength":10}},"required":["city"],"additionalProperties":false}}},)"
    R"({"type":"function","function":{"name":"now"}}]})";

ToolCallStreams streams() {
    auto tools = compile_tool_schemas(kRequest);
    EXPECT_TRUE(tools.is_ok()) << tools.status().to_string();
    return ToolCallStreams(std::move(tools).value());
}

// Feeds one delta's tool_calls array (JSON text).
std::optional<structured::SchemaFailure> take(ToolCallStreams& s, std::string_view calls_json) {
    base::Arena arena;
    auto v = json::parse(calls_json, arena);
    EXPECT_TRUE(v.is_ok()) << calls_json;
    return s.take(**v);
}

TEST(ToolCalls, DefinitionsAreReadAndBadOnesRefused) {
    auto tools = compile_tool_schemas(kRequest);
    ASSERT_TRUE(tools.is_ok());
    EXPECT_EQ(tools->size(), 2u);
    EXPECT_TRUE(compile_tool_schemas(R"({"messages":[]})")->empty());
    for (const char* bad :
         {R"({"tools":{}})", R"({"tools":[{"type":"function"}]})", R"({"tools":[{"function":{"name":""}}]})",
          R"({"tools":[{"function":{"name":"f","parameters":3}}]})",
          R"({"tools":[{"function":{"name":"f","parameters":{"type":12}}}]})"}) {
        EXPECT_TRUE(compile_tool_schemas(bad).status().is_invalid_argument()) << bad;
    }
    EXPECT_NE(compile_tool_schemas(
                  R"({"tools":[{"function":{"name":"a"}},{"function":{"name":"f","parameters":{"type":12}}}]})")
                  .status()
                  .message()
                  .find("tools[1].function.parameters"),
              std::string::npos);
}

TEST(ToolCalls, PiecesSplitAnywhereThenTheCallsWrittenOut) {
    ToolCallStreams s = streams();
    // Arguments may come before the name (a provider that sends the name late): held until the name is known.
    EXPECT_FALSE(take(s, R"([{"index":1,"function":{"arguments":"{"}}])"));
    EXPECT_FALSE(take(s, R"([{"index":0,"id":"call_a","function":{"name":"get_weather","arguments":"{\"ci"}}])"));
    EXPECT_FALSE(take(s, R"([{"index":1,"id":"call_b","function":{"name":"now","arguments":"}"}}])"));
    EXPECT_FALSE(take(s, R"([{"index":0,"function":{"arguments":"ty\": \"Oslo\"}"}}])"));
    std::string out;
    EXPECT_FALSE(s.finish(out));
    EXPECT_EQ(out, R"({"tool_calls":[{"index":0,"id":"call_a","name":"get_weather","arguments":{"city":"Oslo"}},)"
                   R"({"index":1,"id":"call_b","name":"now","arguments":{}}]})");
}

TEST(ToolCalls, FailuresAtTheFirstByteThatProvesThem) {
    ToolCallStreams a = streams();
    auto f = take(a, R"([{"index":0,"function":{"name":"get_weather","arguments":"{\"city\": \"Reykjavik-is-long"}}])");
    ASSERT_TRUE(f);
    EXPECT_EQ(f->pointer, "/tool_calls/0/arguments/city");
    EXPECT_EQ(f->keyword, "maxLength");
    ToolCallStreams b = streams();
    f = take(b, R"([{"index":2,"function":{"name":"get_weather","arguments":"{\"town"}}])");
    ASSERT_TRUE(f);
    EXPECT_EQ(f->pointer, "/tool_calls/2/arguments/town");
    EXPECT_EQ(f->keyword, "additionalProperties");
    EXPECT_EQ(f->offset, 5u);  // the last byte of the piece that holds the name no property starts with
    ToolCallStreams c = streams();
    f = take(c, R"([{"index":0,"function":{"name":"rm_rf","arguments":"{}"}}])");
    ASSERT_TRUE(f);
    EXPECT_EQ(f->keyword, "tool");
    // A required property missing: when the object closes. Arguments cut short: at the end.
    ToolCallStreams d = streams();
    f = take(d, R"([{"index":0,"function":{"name":"get_weather","arguments":"{}"}}])");
    ASSERT_TRUE(f);
    EXPECT_EQ(f->keyword, "required");
    std::string out;
    ToolCallStreams e = streams();
    EXPECT_FALSE(take(e, R"([{"index":0,"function":{"name":"now"}}])"));
    f = e.finish(out);
    ASSERT_TRUE(f);
    EXPECT_EQ(f->message, "the tool call has no arguments");
}

TEST(ToolCalls, AWholeMessagesCallsWithoutIndexes) {
    ToolCallStreams s = streams();
    EXPECT_FALSE(take(
        s, R"([{"id":"x","type":"function","function":{"name":"now","arguments":"{}"}},)"
           R"({"id":"y","type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"Rome\"}"}}])"));
    std::string out;
    EXPECT_FALSE(s.finish(out));
    EXPECT_EQ(out, R"({"tool_calls":[{"index":0,"id":"x","name":"now","arguments":{}},)"
                   R"({"index":1,"id":"y","name":"get_weather","arguments":{"city":"Rome"}}]})");
    ToolCallStreams none(ToolSchemas{});
    EXPECT_FALSE(none.active());
    EXPECT_FALSE(take(none, R"([{"index":0,"function":{"name":"anything","arguments":"nonsense"}}])"));
    EXPECT_FALSE(none.any());
}

}  // namespace
}  // namespace slipstream::agent::llm_proxy
