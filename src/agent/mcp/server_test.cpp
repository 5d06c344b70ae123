// Tests of the Server through handle_message(): lifecycle, lists, tool calls, validation, Call lifetime.
#include <gtest/gtest.h>
#include <unistd.h>

#include <condition_variable>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "agent/mcp/server_harness_test.h"
#include "slipstream/mcp.h"

namespace slipstream::mcp {
namespace {

using testing::add_tool;
using testing::Harness;
using testing::held_tool;
using testing::kInit;

TEST(McpServer, InitializeEchoesAKnownVersionAndOffersOursOtherwise) {
    Harness h;
    EXPECT_NE(h.init("2025-03-26").find(R"("protocolVersion":"2025-03-26")"), std::string::npos);
    Harness h2;
    EXPECT_EQ(h2.init("1999-01-01"),
              R"({"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-11-25","capabilities":{"completions":{},)"
              R"("logging":{},"prompts":{"listChanged":true},"resources":{"subscribe":true,"listChanged":true},)"
              R"("tools":{"listChanged":true}},"serverInfo":{"name":"slipstream","version":"0.1.0"}}})");
    Harness h3;
    EXPECT_EQ(h3.init("2024-11-05").find("completions"), std::string::npos);
    Harness h4;
    EXPECT_EQ(
        h4.send(R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{}})"),
        R"({"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"Invalid params: \"protocolVersion\" must be a string"}})");
}

TEST(McpServer, RequestsBeforeInitializeAreRefusedExceptPing) {
    Harness h;
    EXPECT_EQ(h.send(R"({"jsonrpc":"2.0","id":1,"method":"ping"})"), R"({"jsonrpc":"2.0","id":1,"result":{}})");
    EXPECT_EQ(
        h.send(R"({"jsonrpc":"2.0","id":2,"method":"tools/list"})"),
        R"({"jsonrpc":"2.0","id":2,"error":{"code":-32600,"message":"Invalid Request: the session is not initialized"}})");
}

TEST(McpServer, ErrorsEchoIdsExactly) {
    Harness h;
    h.init();
    EXPECT_EQ(h.send(R"({"jsonrpc":"2.0","id":"abc","method":"nope"})"),
              R"({"jsonrpc":"2.0","id":"abc","error":{"code":-32601,"message":"Method not found: nope"}})");
    EXPECT_EQ(
        h.send("{not json"),
        R"({"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error: Expecting property name enclosed in double quotes"}})");
    EXPECT_EQ(h.send(R"({"jsonrpc":"2.0","id":9007199254740993,"method":"ping"})"),
              R"({"jsonrpc":"2.0","id":9007199254740993,"result":{}})");
    EXPECT_EQ(h.send(R"({"jsonrpc":"2.0","method":"notifications/whatever"})"), "");
}

TEST(McpServer, BatchesOnlyOn20250326) {
    Harness old;
    old.init("2025-03-26");
    EXPECT_EQ(
        old.send(R"([{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","method":"x"},)"
                 R"({"jsonrpc":"2.0","id":2,"method":"nope"},5])"),
        R"([{"jsonrpc":"2.0","id":1,"result":{}},)"
        R"({"jsonrpc":"2.0","id":2,"error":{"code":-32601,"message":"Method not found: nope"}},)"
        R"({"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request: a message must be a JSON object"}}])");
    EXPECT_EQ(old.send(R"([{"jsonrpc":"2.0","method":"x"}])"), "");
    Harness h;
    h.init("2025-06-18");
    EXPECT_EQ(
        h.send(R"([{"jsonrpc":"2.0","id":1,"method":"ping"}])"),
        R"({"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request: batches are only allowed in protocol version 2025-03-26"}})");
}

TEST(McpServer, LimitsOfBatchesAndRequestsInFlight) {
    ServerConfig config;
    config.max_batch = 2;
    config.max_calls_per_session = 1;
    Harness h(config);
    std::vector<Call> held;
    h.server.tool(held_tool("hold", &held));
    h.init("2025-03-26");
    EXPECT_EQ(h.send(R"([{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","id":2,"method":"ping"},)"
                     R"({"jsonrpc":"2.0","id":3,"method":"ping"}])"),
              R"({"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request: batch too large"}})");
    h.send(R"({"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"hold"}})");
    EXPECT_EQ(
        h.send(R"({"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"hold"}})"),
        R"({"jsonrpc":"2.0","id":5,"error":{"code":-32000,"message":"Server busy: too many requests in flight"}})");
    held[0].reply(ToolResult::text("ok"));
    h.send(R"({"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"hold"}})");
    EXPECT_EQ(held.size(), 2u);
    held[1].reply(ToolResult::text("ok"));
}

TEST(McpServer, ToolsListPagesWithCursors) {
    ServerConfig config;
    config.page_size = 2;
    Harness h(config);
    std::vector<Call> held;
    for (const char* name : {"t1", "t2", "t3"})
        h.server.tool(held_tool(name, &held));
    h.init();
    const std::string first = h.send(R"({"jsonrpc":"2.0","id":1,"method":"tools/list"})");
    const auto at = first.find(R"("nextCursor":")");
    ASSERT_NE(at, std::string::npos) << first;
    const std::string cursor = first.substr(at + 14, first.find('"', at + 14) - at - 14);
    EXPECT_NE(first.find(R"("name":"t2")"), std::string::npos);
    EXPECT_EQ(first.find(R"("name":"t3")"), std::string::npos);
    EXPECT_EQ(h.send(R"({"jsonrpc":"2.0","id":2,"method":"tools/list","params":{"cursor":")" + cursor + "\"}}"),
              R"({"jsonrpc":"2.0","id":2,"result":{"tools":[{"name":"t3","inputSchema":{"type":"object"}}]}})");
    EXPECT_EQ(h.send(R"({"jsonrpc":"2.0","id":3,"method":"tools/list","params":{"cursor":"bogus"}})"),
              R"({"jsonrpc":"2.0","id":3,"error":{"code":-32602,"message":"Invalid params: invalid cursor"}})");
}

TEST(McpServer, ToolDescriptionsFollowTheVersion) {
    Harness h;
    h.server.tool(add_tool());
    h.init("2025-03-26");
    const std::string list = h.send(R"({"jsonrpc":"2.0","id":1,"method":"tools/list"})");
    EXPECT_EQ(list.find("outputSchema"), std::string::npos);
    const std::string call =
        h.send(R"({"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"add","arguments":{"a":1,"b":2}}})");
    EXPECT_EQ(
        call,
        R"({"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"{\"result\":3}"}],"isError":false}})");
}

TEST(McpServer, InvalidArgumentsAreAToolErrorNamingEachPointer) {
    Harness h;
    h.server.tool(add_tool());
    h.init();
    EXPECT_EQ(h.send(R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"add","arguments":{"a":"x"}}})"),
              R"({"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"Invalid arguments for tool 'add':)"
              R"(\n/b: Field required\n/a: Input should be a valid number"}],"isError":true}})");
    EXPECT_EQ(h.send(R"({"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"nope"}})"),
              R"({"jsonrpc":"2.0","id":2,"error":{"code":-32602,"message":"Unknown tool: nope"}})");
    EXPECT_EQ(
        h.send(R"({"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"add","arguments":[1]}})"),
        R"({"jsonrpc":"2.0","id":3,"error":{"code":-32602,"message":"Invalid params: \"arguments\" must be an object"}})");
    EXPECT_EQ(
        h.send(R"({"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"add","arguments":{"a":1,"b":2}}})"),
        R"({"jsonrpc":"2.0","id":4,"result":{"content":[{"type":"text","text":"{\"result\":3}"}],)"
        R"("structuredContent":{"result":3},"isError":false}})");
}

TEST(McpServer, StructuredContentIsCheckedAgainstTheOutputSchema) {
    Harness h;
    Tool t = add_tool();
    t.handler = [](Call call) {
        ToolResult r;
        r.structured_json = R"({"result":"three"})";
        call.reply(std::move(r));
    };
    h.server.tool(std::move(t));
    h.init();
    EXPECT_EQ(
        h.send(R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"add","arguments":{"a":1,"b":2}}})"),
        R"({"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"Internal error: invalid tool result"}})");
}

TEST(McpServer, AVouchedStructuredResultIsSentAsItIsBesideItsTextBlock) {
    Harness h;
    Tool t = add_tool();
    t.handler = [](Call call) {
        ToolResult r;
        r.content_json = R"([{"type":"text","text":"{\n  \"result\": 3\n}"}])";
        r.structured_json = R"({"result":3})";
        r.structured_checked = true;
        call.reply(std::move(r));
    };
    h.server.tool(std::move(t));
    h.init();
    EXPECT_EQ(
        h.send(R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"add","arguments":{"a":1,"b":2}}})"),
        R"({"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"{\n  \"result\": 3\n}"}],)"
        R"("structuredContent":{"result":3},"isError":false}})");
}

TEST(McpServer, ACallDestroyedUnansweredAnswersInternalErrorAndAThrowingToolAnIsErrorResult) {
    Harness h;
    std::vector<Call> held;
    h.server.tool(held_tool("hold", &held));
    Tool thrower;
    thrower.name = "throws";
    thrower.handler = [](Call) { throw std::runtime_error("secret internals"); };
    h.server.tool(std::move(thrower));
    h.init();
    EXPECT_EQ(h.send(R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"hold"}})"), "");
    ASSERT_EQ(held.size(), 1u);
    const std::size_t before = h.count();
    held.clear();
    EXPECT_EQ(h.since(before), R"({"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"Internal error"}})");
    EXPECT_EQ(
        h.send(R"({"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"throws"}})"),
        R"({"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"Tool 'throws' failed"}],"isError":true}})");
}

TEST(McpServer, CancelledCallsAreNotAnswered) {
    Harness h;
    std::vector<Call> held;
    h.server.tool(held_tool("hold", &held));
    h.init();
    h.send(R"({"jsonrpc":"2.0","id":"c1","method":"tools/call","params":{"name":"hold"}})");
    ASSERT_EQ(held.size(), 1u);
    bool called = false;
    held[0].on_cancel([&] { called = true; });
    EXPECT_EQ(h.send(R"({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"c1"}})"), "");
    EXPECT_TRUE(called);
    EXPECT_TRUE(held[0].cancelled());
    EXPECT_FALSE(held[0].reply(ToolResult::text("late")));
    const std::size_t before = h.count();
    held.clear();
    EXPECT_EQ(h.since(before), "");
}

TEST(McpServer, DuplicateIdsInFlightAreRefused) {
    Harness h;
    std::vector<Call> held;
    h.server.tool(held_tool("hold", &held));
    h.init();
    h.send(R"({"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"hold"}})");
    EXPECT_EQ(
        h.send(R"({"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"hold"}})"),
        R"({"jsonrpc":"2.0","id":5,"error":{"code":-32600,"message":"Invalid Request: a request with this id is in flight"}})");
    held[0].reply(ToolResult::text("ok"));
}

TEST(McpServer, ProgressNeedsATokenAndMustIncrease) {
    Harness h;
    std::vector<Call> held;
    h.server.tool(held_tool("hold", &held));
    h.init();
    h.send(R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"hold","_meta":{"progressToken":7}}})");
    h.send(R"({"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"hold"}})");
    ASSERT_EQ(held.size(), 2u);
    std::size_t before = h.count();
    EXPECT_TRUE(held[0].progress(1, 4, "one"));
    EXPECT_EQ(
        h.since(before),
        R"({"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":7,"progress":1.0,"total":4.0,"message":"one"}})");
    EXPECT_FALSE(held[0].progress(1));
    EXPECT_FALSE(held[1].progress(1));
    EXPECT_EQ(held[0].meta_json(), R"({"progressToken":7})");
    held[0].reply(ToolResult::text("a"));
    held[1].reply(ToolResult::text("b"));
    EXPECT_FALSE(held[0].progress(2));
}

TEST(McpServer, LogRespectsTheSessionLevel) {
    Harness h;
    std::vector<Call> held;
    h.server.tool(held_tool("hold", &held));
    h.init();
    EXPECT_EQ(h.send(R"({"jsonrpc":"2.0","id":1,"method":"logging/setLevel","params":{"level":"warning"}})"),
              R"({"jsonrpc":"2.0","id":1,"result":{}})");
    EXPECT_NE(
        h.send(R"({"jsonrpc":"2.0","id":2,"method":"logging/setLevel","params":{"level":"loud"}})").find("-32602"),
        std::string::npos);
    h.send(R"({"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"hold"}})");
    const std::size_t before = h.count();
    EXPECT_FALSE(held[0].log(LogLevel::kInfo, R"("quiet")"));
    EXPECT_TRUE(held[0].log(LogLevel::kError, R"({"x":1})", "db"));
    EXPECT_EQ(
        h.since(before),
        R"({"jsonrpc":"2.0","method":"notifications/message","params":{"level":"error","logger":"db","data":{"x":1}}})");
    held[0].reply(ToolResult::text("ok"));
}

TEST(McpServer, ConcurrencyLimitQueuesCallsInOrder) {
    Harness h;
    std::vector<Call> held;
    Tool t = held_tool("one", &held);
    t.max_concurrency = 1;
    h.server.tool(std::move(t));
    h.init();
    h.send(R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"one"}})");
    h.send(R"({"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"one"}})");
    ASSERT_EQ(held.size(), 1u);
    EXPECT_EQ(held[0].request_id(), "1");
    held[0].reply(ToolResult::text("first"));
    ASSERT_EQ(held.size(), 2u);
    EXPECT_EQ(held[1].request_id(), "2");
    held[1].reply(ToolResult::text("second"));
}

TEST(McpServer, ToolTimeoutAnswersATimedOutResult) {
    Harness h;
    std::vector<Call> held;
    Tool t = held_tool("hold", &held);
    t.timeout_ms = 1;
    h.server.tool(std::move(t));
    h.init();
    const std::size_t before = h.count();
    h.send(R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"hold"}})");
    EXPECT_EQ(
        h.wait_beyond(before),
        R"({"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"Tool 'hold' timed out after 1 ms"}],"isError":true}})");
    EXPECT_TRUE(held[0].cancelled());
    EXPECT_FALSE(held[0].reply(ToolResult::text("late")));
}

TEST(McpServer, ResourcesTemplatesPromptsAndCompletion) {
    Harness h;
    Resource r;
    r.uri = "info://server";
    r.name = "info";
    r.handler = [](Call c) { c.reply_json(R"({"contents":[{"uri":"info://server","text":"hi"}]})"); };
    h.server.resource(std::move(r));
    ResourceTemplate t;
    t.uri_template = "users://{id}/profile";
    t.name = "user";
    t.handler = [](Call c) {
        c.reply_json(R"({"contents":[{"uri":"x","text":)" + std::string(c.arguments_json()) + "}]}");
    };
    h.server.resource_template(std::move(t));
    Prompt p;
    p.name = "review";
    p.arguments = {{"code", "", true}};
    p.handler = [](Call c) { c.reply_json(R"({"messages":[]})"); };
    h.server.prompt(std::move(p));
    h.init();
    EXPECT_EQ(h.send(R"({"jsonrpc":"2.0","id":1,"method":"resources/read","params":{"uri":"info://server"}})"),
              R"({"jsonrpc":"2.0","id":1,"result":{"contents":[{"uri":"info://server","text":"hi"}]}})");
    EXPECT_EQ(h.send(R"({"jsonrpc":"2.0","id":2,"method":"resources/read","params":{"uri":"users://42/profile"}})"),
              R"({"jsonrpc":"2.0","id":2,"result":{"contents":[{"uri":"x","text":{"id":"42"}}]}})");
    EXPECT_EQ(
        h.send(R"({"jsonrpc":"2.0","id":3,"method":"resources/read","params":{"uri":"nope://x"}})"),
        R"({"jsonrpc":"2.0","id":3,"error":{"code":-32002,"message":"Resource not found","data":{"uri":"nope://x"}}})");
    EXPECT_EQ(
        h.send(R"({"jsonrpc":"2.0","id":4,"method":"resources/templates/list"})"),
        R"({"jsonrpc":"2.0","id":4,"result":{"resourceTemplates":[{"uriTemplate":"users://{id}/profile","name":"user"}]}})");
    EXPECT_EQ(
        h.send(R"({"jsonrpc":"2.0","id":5,"method":"prompts/get","params":{"name":"review"}})"),
        R"({"jsonrpc":"2.0","id":5,"error":{"code":-32602,"message":"Invalid params: missing required argument 'code'"}})");
    EXPECT_EQ(
        h.send(
            R"({"jsonrpc":"2.0","id":6,"method":"prompts/get","params":{"name":"review","arguments":{"code":"x"}}})"),
        R"({"jsonrpc":"2.0","id":6,"result":{"messages":[]}})");
    EXPECT_EQ(
        h.send(
            R"({"jsonrpc":"2.0","id":7,"method":"completion/complete","params":{"ref":{"type":"ref/prompt","name":"review"},"argument":{"name":"code","value":"d"}}})"),
        R"({"jsonrpc":"2.0","id":7,"result":{"completion":{"values":[],"hasMore":false}}})");
}

TEST(McpServer, ListChangedAndResourceUpdatedReachTheSession) {
    Harness h;
    std::vector<Call> held;
    h.init();
    EXPECT_EQ(h.send(R"({"jsonrpc":"2.0","id":1,"method":"resources/subscribe","params":{"uri":"info://x"}})"),
              R"({"jsonrpc":"2.0","id":1,"result":{}})");
    std::size_t before = h.count();
    h.server.tool(held_tool("late", &held));
    EXPECT_EQ(h.since(before), R"({"jsonrpc":"2.0","method":"notifications/tools/list_changed"})");
    before = h.count();
    h.server.resource_updated("info://x");
    h.server.resource_updated("info://other");
    EXPECT_EQ(h.since(before),
              R"({"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"uri":"info://x"}})");
    EXPECT_TRUE(h.server.remove_tool("late"));
    EXPECT_FALSE(h.server.remove_tool("late"));
}

TEST(McpServer, SubscriptionsPerSessionAreLimited) {
    ServerConfig config;
    config.max_subscriptions = 2;
    Harness h(config);
    h.init();
    auto subscribe = [&](int id, const char* uri) {
        return h.send(R"({"jsonrpc":"2.0","id":)" + std::to_string(id) +
                      R"(,"method":"resources/subscribe","params":{"uri":")" + uri + R"("}})");
    };
    EXPECT_EQ(subscribe(1, "a://1"), R"({"jsonrpc":"2.0","id":1,"result":{}})");
    EXPECT_EQ(subscribe(2, "a://2"), R"({"jsonrpc":"2.0","id":2,"result":{}})");
    EXPECT_EQ(subscribe(3, "a://2"), R"({"jsonrpc":"2.0","id":3,"result":{}})");  // again: no new one
    EXPECT_EQ(
        subscribe(4, "a://3"),
        R"({"jsonrpc":"2.0","id":4,"error":{"code":-32000,"message":"Too many subscriptions for this session"}})");
    EXPECT_EQ(h.send(R"({"jsonrpc":"2.0","id":5,"method":"resources/unsubscribe","params":{"uri":"a://1"}})"),
              R"({"jsonrpc":"2.0","id":5,"result":{}})");
    EXPECT_EQ(subscribe(6, "a://3"), R"({"jsonrpc":"2.0","id":6,"result":{}})");
    const std::size_t before = h.count();
    h.server.resource_updated("a://1");
    h.server.resource_updated("a://3");
    EXPECT_EQ(h.since(before),
              R"({"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"uri":"a://3"}})");
}

TEST(McpServer, RequestsToTheClientNeedItsCapabilityAndGetItsAnswer) {
    Harness h;
    std::vector<Call> held;
    h.server.tool(held_tool("ask", &held));
    h.send(R"({"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25",)"
           R"("capabilities":{"elicitation":{}}}})");
    h.send(R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"ask"}})");
    h.send(R"({"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"ask"}})");
    ASSERT_EQ(held.size(), 2u);
    EXPECT_EQ(held[0].client_capabilities_json(), R"({"elicitation":{}})");
    std::vector<std::pair<bool, std::string>> answers;
    auto record = [&answers](bool ok, std::string json) { answers.emplace_back(ok, std::move(json)); };
    EXPECT_FALSE(held[0].request("sampling/createMessage", R"({"messages":[]})", record));  // not declared
    EXPECT_FALSE(held[0].request("elicitation/create", "[1]", record));                     // params not an object
    std::size_t before = h.count();
    EXPECT_TRUE(held[0].request("elicitation/create", R"({"message":"name?"})", record));
    EXPECT_EQ(h.since(before),
              R"({"jsonrpc":"2.0","id":"s1","method":"elicitation/create","params":{"message":"name?"}})");
    EXPECT_TRUE(held[1].request("elicitation/create", R"({"message":"again?"})", record));
    EXPECT_EQ(h.send(R"({"jsonrpc":"2.0","id":"s2","error":{"code":-1,"message":"no"}})"), "");
    EXPECT_EQ(h.send(R"({"jsonrpc":"2.0","id":"s1","result":{"action":"accept","content":{"n":"x"}}})"), "");
    EXPECT_EQ(h.send(R"({"jsonrpc":"2.0","id":"s1","result":{}})"), "");  // answered already: ignored
    ASSERT_EQ(answers.size(), 2u);
    EXPECT_EQ(answers[0], (std::pair<bool, std::string>{false, R"({"code":-1,"message":"no"})"}));
    EXPECT_EQ(answers[1], (std::pair<bool, std::string>{true, R"({"action":"accept","content":{"n":"x"}})"}));
    held[0].reply(ToolResult::text("a"));
    EXPECT_FALSE(held[0].request("elicitation/create", "{}", record));  // the call is over
    held[1].reply(ToolResult::text("b"));
}

TEST(McpServer, UnansweredRequestsToTheClientTimeOut) {
    Harness h;
    std::vector<Call> held;
    h.server.tool(held_tool("ask", &held));
    h.send(R"({"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25",)"
           R"("capabilities":{"roots":{}}}})");
    h.send(R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"ask"}})");
    ASSERT_EQ(held.size(), 1u);
    std::mutex mu;
    std::condition_variable cv;
    std::optional<std::pair<bool, std::string>> answer;
    ASSERT_TRUE(held[0].request(
        "roots/list", "{}",
        [&](bool ok, std::string json) {
            std::lock_guard lock(mu);
            answer.emplace(ok, std::move(json));
            cv.notify_all();
        },
        1));
    std::unique_lock lock(mu);
    cv.wait_for(lock, std::chrono::seconds(10), [&] { return answer.has_value(); });
    ASSERT_TRUE(answer.has_value());
    EXPECT_EQ(*answer, (std::pair<bool, std::string>{false, R"({"code":-32001,"message":"Request timed out"})"}));
    lock.unlock();
    held[0].reply(ToolResult::text("done"));
}

// Reads one line from `fd` (blocking).
std::string read_line(int fd) {
    std::string line;
    char c = 0;
    while (::read(fd, &c, 1) == 1 && c != '\n')
        line.push_back(c);
    return line;
}

TEST(McpStdio, AnswersLinesAndEndsOnStopOrEndOfInput) {
    int in[2], out[2];
    ASSERT_EQ(::pipe(in), 0);
    ASSERT_EQ(::pipe(out), 0);
    Server server;
    int rc = -1;
    std::thread loop([&] { rc = server.serve_stdio(in[0], out[1]); });
    const std::string ping = R"({"jsonrpc":"2.0","id":1,"method":"ping"})"
                             "\n";
    ASSERT_EQ(::write(in[1], ping.data(), ping.size()), static_cast<ssize_t>(ping.size()));
    EXPECT_EQ(read_line(out[0]), R"({"jsonrpc":"2.0","id":1,"result":{}})");
    server.stop();
    loop.join();
    EXPECT_EQ(rc, 0);

    Server second;  // end of input ends it too, answering a message split across writes first
    std::thread loop2([&] { rc = second.serve_stdio(in[0], out[1]); });
    ASSERT_EQ(::write(in[1], ping.data(), 10), 10);
    ASSERT_EQ(::write(in[1], ping.data() + 10, ping.size() - 10), static_cast<ssize_t>(ping.size() - 10));
    EXPECT_EQ(read_line(out[0]), R"({"jsonrpc":"2.0","id":1,"result":{}})");
    ::close(in[1]);
    loop2.join();
    EXPECT_EQ(rc, 0);
    ::close(in[0]);
    ::close(out[0]);
    ::close(out[1]);
}

TEST(McpServer, RegistrationChecks) {
    Server s;
    std::vector<Call> held;
    EXPECT_THROW(s.tool(held_tool("bad name", &held)), std::invalid_argument);
    EXPECT_THROW(s.tool(held_tool(std::string(129, 'a'), &held)), std::invalid_argument);
    s.tool(held_tool("ok", &held));
    EXPECT_THROW(s.tool(held_tool("ok", &held)), std::invalid_argument);
    Tool bad_schema = held_tool("schema", &held);
    bad_schema.input_schema_json = R"({"type":"object","properties":{"a":{"minLength":"x"}}})";
    EXPECT_THROW(s.tool(std::move(bad_schema)), std::invalid_argument);
    Tool not_object = held_tool("array", &held);
    not_object.input_schema_json = R"({"type":"array"})";
    EXPECT_THROW(s.tool(std::move(not_object)), std::invalid_argument);
    ResourceTemplate t;
    t.uri_template = "x://{a}{b}";
    t.name = "t";
    t.handler = [](Call) {};
    EXPECT_THROW(s.resource_template(std::move(t)), std::invalid_argument);
    Resource r;
    r.uri = "no scheme";
    r.name = "r";
    r.handler = [](Call) {};
    EXPECT_THROW(s.resource(std::move(r)), std::invalid_argument);
}

}  // namespace
}  // namespace slipstream::mcp
