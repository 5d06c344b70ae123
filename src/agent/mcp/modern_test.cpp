// Tests of protocol 2026-07-28 through handle_message(): the per-request envelope, server/discover, results,
// multi round-trip requests and subscriptions/listen.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "agent/mcp/server_harness_test.h"
#include "slipstream/mcp.h"

namespace slipstream::mcp {
namespace {

using testing::add_tool;
using testing::Harness;

constexpr std::string_view kInfo =
    R"("_meta":{"io.modelcontextprotocol/serverInfo":{"name":"slipstream","version":"0.1.0"}})";

// A request with the 2026-07-28 envelope; `members` are more params members, `meta` more _meta members.
std::string modern(std::string_view id, std::string_view method, std::string_view members = {},
                   std::string_view meta = {}, std::string_view version = "2026-07-28", std::string_view caps = "{}") {
    std::string text = R"({"jsonrpc":"2.0","id":)" + std::string(id) + R"(,"method":")" + std::string(method) +
                       R"(","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":")" + std::string(version) +
                       R"(","io.modelcontextprotocol/clientInfo":{"name":"t","version":"1"},)" +
                       R"("io.modelcontextprotocol/clientCapabilities":)" + std::string(caps);
    if (!meta.empty()) text += "," + std::string(meta);
    text += "}";
    if (!members.empty()) text += "," + std::string(members);
    return text + "}}";
}

// The string value of `"key":"..."` in `text` (the first one), or empty.
std::string string_member(const std::string& text, std::string_view key) {
    const std::string marker = "\"" + std::string(key) + "\":\"";
    const auto at = text.find(marker);
    if (at == std::string::npos) return {};
    const auto begin = at + marker.size();
    return text.substr(begin, text.find('"', begin) - begin);
}

TEST(McpModern, DiscoverNamesEveryVersionTheCapabilitiesAndTheServer) {
    ServerConfig config;
    config.instructions = "Be brief.";
    config.cache_ttl_ms = 5000;
    Harness h(config);
    EXPECT_EQ(h.send(modern("1", "server/discover")),
              R"({"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","ttlMs":5000,"cacheScope":"public",)" +
                  std::string(kInfo) +
                  R"(,"supportedVersions":["2026-07-28","2025-11-25","2025-06-18","2025-03-26","2024-11-05"],)"
                  R"("capabilities":{"completions":{},"logging":{},"prompts":{"listChanged":true},)"
                  R"("resources":{"subscribe":true,"listChanged":true},"tools":{"listChanged":true}},)"
                  R"("instructions":"Be brief."}})");
}

TEST(McpModern, AnUnknownVersionIsRefusedWithTheSupportedOnesAndABadEnvelopeIsInvalidParams) {
    Harness h;
    const std::string supported = R"(["2026-07-28","2025-11-25","2025-06-18","2025-03-26","2024-11-05"])";
    EXPECT_EQ(h.send(modern("1", "tools/list", {}, {}, "1900-01-01")),
              R"({"jsonrpc":"2.0","id":1,"error":{"code":-32022,"message":"Unsupported protocol version",)"
              R"("data":{"supported":)" +
                  supported + R"(,"requested":"1900-01-01"}}})");
    // A handshake version is negotiated by initialize, not carried per request.
    EXPECT_NE(h.send(modern("2", "tools/list", {}, {}, "2025-11-25")).find(R"("code":-32022)"), std::string::npos);
    EXPECT_EQ(h.send(R"({"jsonrpc":"2.0","id":3,"method":"tools/list","params":{"_meta":{)"
                     R"("io.modelcontextprotocol/protocolVersion":"2026-07-28"}}})"),
              R"({"jsonrpc":"2.0","id":3,"error":{"code":-32602,"message":"Invalid params: _meta )"
              R"(\"io.modelcontextprotocol/clientCapabilities\" must be an object"}})");
    EXPECT_NE(
        h.send(modern("4", "tools/list", {}, R"("io.modelcontextprotocol/logLevel":"loud")")).find(R"("code":-32602)"),
        std::string::npos);
}

TEST(McpModern, RequestsNeedNoInitializeAndResultsCarryTheirTypeAndCachingHints) {
    Harness h;
    h.server.tool(add_tool());
    Resource r;
    r.uri = "info://server";
    r.name = "info";
    r.handler = [](Call c) { c.reply_json(R"({"contents":[{"uri":"info://server","text":"hi"}]})"); };
    h.server.resource(std::move(r));
    const std::string list = h.send(modern("1", "tools/list"));
    EXPECT_EQ(list.rfind(R"({"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","ttlMs":0,)"
                         R"("cacheScope":"public",)" +
                             std::string(kInfo) + R"(,"tools":[{"name":"add")",
                         0),
              0u)
        << list;
    EXPECT_NE(list.find("outputSchema"), std::string::npos);
    EXPECT_EQ(h.send(modern("2", "tools/call", R"("name":"add","arguments":{"a":1,"b":2})")),
              R"({"jsonrpc":"2.0","id":2,"result":{"resultType":"complete",)" + std::string(kInfo) +
                  R"(,"content":[{"type":"text","text":"{\"result\":3}"}],"structuredContent":{"result":3},)"
                  R"("isError":false}})");
    // A read may differ per user: private.
    EXPECT_EQ(h.send(modern("3", "resources/read", R"("uri":"info://server")")),
              R"({"jsonrpc":"2.0","id":3,"result":{"resultType":"complete","ttlMs":0,"cacheScope":"private",)" +
                  std::string(kInfo) + R"(,"contents":[{"uri":"info://server","text":"hi"}]}})");
    // 2026-07-28 moved "resource not found" to invalid params.
    EXPECT_EQ(h.send(modern("4", "resources/read", R"("uri":"nope://x")")),
              R"({"jsonrpc":"2.0","id":4,"error":{"code":-32602,"message":"Resource not found",)"
              R"("data":{"uri":"nope://x"}}})");
    // The legacy era still needs its handshake on the same connection.
    EXPECT_NE(h.send(R"({"jsonrpc":"2.0","id":5,"method":"tools/list"})").find("not initialized"), std::string::npos);
}

TEST(McpModern, TheHandshakeErasMethodsAreNotMethodsOfThisVersion) {
    Harness h;
    for (const char* method : {"initialize", "ping", "logging/setLevel", "resources/subscribe", "tasks/get"})
        EXPECT_EQ(h.send(modern("1", method)), R"({"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"Method )"
                                               R"(not found: )" +
                                                   std::string(method) + R"("}})");
}

TEST(McpModern, LogMessagesGoOnlyToARequestThatNamedALevel) {
    Harness h;
    Tool t;
    t.name = "chatty";
    t.handler = [](Call c) {
        c.log(LogLevel::kDebug, R"("details")");
        c.log(LogLevel::kWarning, R"("careful")");
        c.reply(ToolResult::text("ok"));
    };
    h.server.tool(std::move(t));
    const std::string silent = h.send(modern("1", "tools/call", R"("name":"chatty")"));
    EXPECT_EQ(silent.find("notifications/message"), std::string::npos) << silent;
    const std::string warned =
        h.send(modern("2", "tools/call", R"("name":"chatty")", R"("io.modelcontextprotocol/logLevel":"info")"));
    EXPECT_EQ(warned.find("details"), std::string::npos);
    EXPECT_NE(warned.find(R"({"jsonrpc":"2.0","method":"notifications/message","params":{"level":"warning",)"
                          R"("data":"careful"}})"),
              std::string::npos)
        << warned;
}

// A tool asking the client twice (elicitation/create), then answering with both answers.
Tool asking_tool() {
    Tool t;
    t.name = "ask";
    t.input_schema_json = R"({"type":"object","properties":{"topic":{"type":"string"}}})";
    t.handler = [](Call call) {
        auto shared = std::make_shared<Call>(std::move(call));
        const bool asked = shared->request(
            "elicitation/create", R"({"message":"first?","requestedSchema":{"type":"object"}})",
            [shared](bool, std::string first) {
                shared->request("elicitation/create", R"({"message":"second?","requestedSchema":{"type":"object"}})",
                                [shared, first](bool, std::string second) {
                                    shared->reply(ToolResult::text(first + " " + second));
                                });
            });
        if (!asked) shared->reply(ToolResult::text("cannot ask"));
    };
    return t;
}

TEST(McpModern, ARequestToTheClientIsAnInputRequiredResultAndTheRetryBringsTheAnswers) {
    Harness h;
    h.server.tool(asking_tool());
    const std::string args = R"("name":"ask","arguments":{"topic":"x"})";
    // A client without the elicitation capability is not asked.
    EXPECT_NE(h.send(modern("1", "tools/call", args)).find("cannot ask"), std::string::npos);
    const std::string caps = R"({"elicitation":{}})";
    const std::string first = h.send(modern("2", "tools/call", args, {}, "2026-07-28", caps));
    EXPECT_EQ(first.rfind(R"({"jsonrpc":"2.0","id":2,"result":{"resultType":"input_required","inputRequests":)"
                          R"({"r0":{"method":"elicitation/create","params":{"message":"first?",)",
                          0),
              0u)
        << first;
    EXPECT_EQ(first.find("ttlMs"), std::string::npos);  // an interim result carries no caching hints
    const std::string state1 = string_member(first, "requestState");
    ASSERT_FALSE(state1.empty());
    // Round two: the first answer arrives, the second question goes out, the first answer rides in the new state.
    const std::string second = h.send(modern(
        "3", "tools/call", args + R"(,"requestState":")" + state1 + R"(","inputResponses":{"r0":{"action":"accept"}})",
        {}, "2026-07-28", caps));
    EXPECT_NE(second.find(R"("inputRequests":{"r1":{"method":"elicitation/create","params":{"message":"second?")"),
              std::string::npos)
        << second;
    const std::string state2 = string_member(second, "requestState");
    const std::string done = h.send(modern(
        "4", "tools/call", args + R"(,"requestState":")" + state2 + R"(","inputResponses":{"r1":{"action":"decline"}})",
        {}, "2026-07-28", caps));
    EXPECT_NE(done.find(R"("resultType":"complete")"), std::string::npos) << done;
    EXPECT_NE(done.find(R"(\"action\":\"accept\"} {\"action\":\"decline\"})"), std::string::npos) << done;

    // An altered state, or one presented with other arguments, fails verification.
    std::string altered = state2;
    altered[altered.size() / 2] = altered[altered.size() / 2] == 'A' ? 'B' : 'A';
    const std::string refused = R"("code":-32602,"message":"Invalid params: requestState failed verification")";
    EXPECT_NE(h.send(modern("5", "tools/call", args + R"(,"requestState":")" + altered + "\"", {}, "2026-07-28", caps))
                  .find(refused),
              std::string::npos);
    EXPECT_NE(
        h.send(modern("6", "tools/call", R"("name":"ask","arguments":{"topic":"y"},"requestState":")" + state2 + "\"",
                      {}, "2026-07-28", caps))
            .find(refused),
        std::string::npos);
    EXPECT_NE(h.send(modern("7", "tools/call", args + R"(,"inputResponses":[1])", {}, "2026-07-28", caps))
                  .find(R"("code":-32602)"),
              std::string::npos);
}

TEST(McpModern, RequireInputAsksWithServerChosenKeysAndKeepsEarlierAnswers) {
    Harness h;
    Tool t;
    t.name = "form";
    t.handler = [](Call call) {
        if (!call.input_response("who")) {
            // Sampling is not declared: such a request is never sent.
            EXPECT_FALSE(call.require_input(R"({"x":{"method":"sampling/createMessage","params":{}}})"));
            EXPECT_FALSE(call.require_input(R"({"x":{"method":"tools/call","params":{}}})"));
            EXPECT_FALSE(call.require_input("{}"));
            EXPECT_TRUE(call.require_input(R"({"who":{"method":"elicitation/create","params":{"message":"who?"}},)"
                                           R"("where":{"method":"roots/list","params":{}}})"));
            return;
        }
        if (!call.input_response("when")) {
            call.require_input(R"({"when":{"method":"elicitation/create","params":{"message":"when?"}}})");
            return;
        }
        call.reply(ToolResult::text(*call.input_response("who") + *call.input_response("where") +
                                    *call.input_response("when")));
    };
    h.server.tool(std::move(t));
    const std::string caps = R"({"elicitation":{},"roots":{}})";
    const std::string first = h.send(modern("1", "tools/call", R"("name":"form")", {}, "2026-07-28", caps));
    EXPECT_NE(first.find(R"("inputRequests":{"who":{"method":"elicitation/create","params":{"message":"who?"}},)"
                         R"("where":{"method":"roots/list","params":{}}})"),
              std::string::npos)
        << first;
    const std::string second = h.send(
        modern("2", "tools/call",
               R"("name":"form","requestState":")" + string_member(first, "requestState") +
                   R"(","inputResponses":{"who":{"action":"accept"},"where":{"roots":[]},"extra":{"ignored":true}})",
               {}, "2026-07-28", caps));
    EXPECT_NE(second.find(R"("inputRequests":{"when")"), std::string::npos) << second;
    const std::string done = h.send(modern("3", "tools/call",
                                           R"("name":"form","requestState":")" + string_member(second, "requestState") +
                                               R"(","inputResponses":{"when":{"action":"decline"}})",
                                           {}, "2026-07-28", caps));
    EXPECT_NE(done.find(R"({\"action\":\"accept\"}{\"roots\":[]}{\"action\":\"decline\"})"), std::string::npos) << done;
    // A handshake-era call cannot ask this way.
    Tool legacy;
    legacy.name = "legacy";
    legacy.handler = [](Call call) {
        call.reply(ToolResult::text(call.require_input(R"({"a":{"method":"roots/list"}})") ? "asked" : "refused"));
    };
    h.server.tool(std::move(legacy));
    h.init();
    EXPECT_NE(h.send(R"({"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"legacy"}})").find("refused"),
              std::string::npos);
}

TEST(McpModern, AStateSealedByAnotherKeyIsRefusedAndOneOfTheSameKeyAccepted) {
    ServerConfig config;
    config.request_state_key = "shared-secret";
    Harness a(config), b(config), other;
    for (Harness* h : {&a, &b, &other})
        h->server.tool(asking_tool());
    const std::string args = R"("name":"ask","arguments":{})";
    const std::string caps = R"({"elicitation":{}})";
    const std::string state =
        string_member(a.send(modern("1", "tools/call", args, {}, "2026-07-28", caps)), "requestState");
    const std::string retry = modern(
        "2", "tools/call", args + R"(,"requestState":")" + state + R"(","inputResponses":{"r0":{"action":"accept"}})",
        {}, "2026-07-28", caps);
    EXPECT_NE(b.send(retry).find(R"("inputRequests":{"r1")"), std::string::npos);  // a replica with the same key
    EXPECT_NE(other.send(retry).find("requestState failed verification"), std::string::npos);
}

TEST(McpModern, ListenAcknowledgesThenSendsOnlyWhatWasAskedForUntilCancelled) {
    Harness h;
    const std::size_t before = h.count();
    h.send(modern("7", "subscriptions/listen",
                  R"("notifications":{"toolsListChanged":true,"resourceSubscriptions":["file:///a"]})"));
    EXPECT_EQ(h.since(before),
              R"({"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{"_meta":)"
              R"({"io.modelcontextprotocol/subscriptionId":7},"notifications":{"toolsListChanged":true,)"
              R"("resourceSubscriptions":["file:///a"]}}})");
    std::size_t n = h.count();
    Prompt p;
    p.name = "p";
    p.handler = [](Call c) { c.reply_json(R"({"messages":[]})"); };
    h.server.prompt(std::move(p));  // not asked for
    h.server.resource_updated("file:///b");
    EXPECT_EQ(h.since(n), "");
    h.server.tool(add_tool());
    h.server.resource_updated("file:///a");
    EXPECT_EQ(h.since(n), R"({"jsonrpc":"2.0","method":"notifications/tools/list_changed","params":{"_meta":)"
                          R"({"io.modelcontextprotocol/subscriptionId":7}}})"
                          "\n"
                          R"({"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"_meta":)"
                          R"({"io.modelcontextprotocol/subscriptionId":7},"uri":"file:///a"}})");
    n = h.count();
    h.send(R"({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7}})");
    h.server.resource_updated("file:///a");
    EXPECT_EQ(h.since(n), "");
    EXPECT_NE(h.send(modern("8", "subscriptions/listen", R"("notifications":{"toolsListChanged":1})"))
                  .find(R"("code":-32602)"),
              std::string::npos);
}

TEST(McpModern, StoppingEndsAListenStreamWithItsResult) {
    Harness h;
    h.send(modern("\"s\"", "subscriptions/listen", R"("notifications":{})"));
    const std::size_t n = h.count();
    h.server.stop();
    EXPECT_EQ(h.since(n), R"({"jsonrpc":"2.0","id":"s","result":{"resultType":"complete","_meta":)"
                          R"({"io.modelcontextprotocol/subscriptionId":"s"}}})");
}

}  // namespace
}  // namespace slipstream::mcp
