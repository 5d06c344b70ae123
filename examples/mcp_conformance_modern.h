// The tools and the prompt the conformance suite's 2026-07-28 scenarios call (server-stateless,
// input-required-result-*, http-custom-header-server-validation), for examples/mcp_conformance_server.cpp.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "slipstream/json.h"
#include "slipstream/mcp.h"

namespace mcp_conformance {

namespace mcp = slipstream::mcp;

inline constexpr const char* kAskName =
    R"({"method":"elicitation/create","params":{"message":"What is your name?","requestedSchema":{"type":"object",)"
    R"("properties":{"name":{"type":"string"}},"required":["name"]}}})";
inline constexpr const char* kAskCapital =
    R"({"method":"sampling/createMessage","params":{"messages":[{"role":"user","content":{"type":"text",)"
    R"("text":"What is the capital of France?"}}],"maxTokens":100}})";
inline constexpr const char* kAskRoots = R"({"method":"roots/list","params":{}})";

// A tool answering `reply(call)` once the client answered every input request of `requests` (an InputRequests
// object), asking for them until then (the multi round-trip pattern: each retry runs the handler again).
template <typename Reply>
mcp::Tool input_tool(std::string name, std::string requests, std::initializer_list<const char*> keys, Reply reply) {
    mcp::Tool t;
    t.name = std::move(name);
    t.description = "Asks the client for input (multi round-trip request)";
    std::vector<std::string> wanted(keys.begin(), keys.end());
    t.handler = [requests = std::move(requests), wanted, reply](mcp::Call call) {
        for (const std::string& key : wanted)
            if (!call.input_response(key)) {
                if (!call.require_input(requests)) call.reply(mcp::ToolResult::error("The client cannot answer"));
                return;
            }
        call.reply(mcp::ToolResult::text(reply(call)));
    };
    return t;
}

// The string `field` of a form elicitation's answer (`{"action":"accept","content":{"name":"Ada"}}`), or "": a plain
// text search, enough for the suite's answers.
inline std::string answered(const mcp::Call& call, const char* key, const char* field) {
    const std::optional<std::string> text = call.input_response(key);
    if (!text) return {};
    const std::string marker = "\"" + std::string(field) + "\":\"";
    const std::size_t at = text->find(marker);
    if (at == std::string::npos) return {};
    const std::size_t begin = at + marker.size();
    return text->substr(begin, text->find('"', begin) - begin);
}

// True when the request's client capabilities declare `name` (`"sampling":{...}`).
inline bool declares(const mcp::Call& call, const char* name) {
    return call.client_capabilities_json().find("\"" + std::string(name) + "\":") != std::string::npos;
}

inline void add_input_required_tools(mcp::Server& s) {
    s.tool(input_tool("test_input_required_result_elicitation", std::string(R"({"user_name":)") + kAskName + "}",
                      {"user_name"}, [](mcp::Call& c) { return "Hello, " + answered(c, "user_name", "name") + "!"; }));
    s.tool(input_tool("test_input_required_result_sampling", std::string(R"({"capital_question":)") + kAskCapital + "}",
                      {"capital_question"},
                      [](mcp::Call& c) { return "The model answered: " + *c.input_response("capital_question"); }));
    s.tool(input_tool("test_input_required_result_list_roots", std::string(R"({"client_roots":)") + kAskRoots + "}",
                      {"client_roots"},
                      [](mcp::Call& c) { return "The client's roots: " + *c.input_response("client_roots"); }));
    s.tool(input_tool(
        "test_input_required_result_request_state",
        R"({"confirm":{"method":"elicitation/create","params":{"message":"Please confirm","requestedSchema":)"
        R"({"type":"object","properties":{"ok":{"type":"boolean"}},"required":["ok"]}}}})",
        {"confirm"}, [](mcp::Call&) { return std::string("state-ok: the sealed requestState verified"); }));
    s.tool(input_tool("test_input_required_result_multiple_inputs",
                      std::string(R"({"user_name":)") + kAskName +
                          R"(,"greeting":{"method":"sampling/createMessage","params":{"messages":[{"role":"user",)"
                          R"("content":{"type":"text","text":"Generate a greeting"}}],"maxTokens":50}},)"
                          R"("client_roots":)" +
                          kAskRoots + "}",
                      {"user_name", "greeting", "client_roots"},
                      [](mcp::Call& c) { return "All inputs received for " + answered(c, "user_name", "name"); }));
    s.tool(input_tool("test_input_required_result_tampered_state", std::string(R"({"user_name":)") + kAskName + "}",
                      {"user_name"}, [](mcp::Call&) { return std::string("state verified"); }));
    // Two rounds: step1 (a name), then step2 (a color), the first answer kept in the sealed state.
    mcp::Tool rounds;
    rounds.name = "test_input_required_result_multi_round";
    rounds.description = "Asks twice, one question per round";
    rounds.handler = [](mcp::Call call) {
        if (!call.input_response("step1")) {
            call.require_input(
                R"({"step1":{"method":"elicitation/create","params":{"message":"Step 1: What is your name?",)"
                R"("requestedSchema":{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}}}})");
        } else if (!call.input_response("step2")) {
            call.require_input(
                R"({"step2":{"method":"elicitation/create","params":{"message":"Step 2: What is your favorite color?",)"
                R"("requestedSchema":{"type":"object","properties":{"color":{"type":"string"}},"required":["color"]}}}})");
        } else {
            call.reply(mcp::ToolResult::text("Hello " + answered(call, "step1", "name") + ", you like " +
                                             answered(call, "step2", "color")));
        }
    };
    s.tool(std::move(rounds));
    // Asks only for what the request's capabilities allow: sampling and/or elicitation.
    mcp::Tool caps;
    caps.name = "test_input_required_result_capabilities";
    caps.description = "Asks for what the client declared";
    caps.handler = [](mcp::Call call) {
        if (call.input_response("capital_question") || call.input_response("user_name"))
            return (void)call.reply(mcp::ToolResult::text("Thanks"));
        std::string requests;
        if (declares(call, "sampling")) requests += std::string(R"("capital_question":)") + kAskCapital;
        if (declares(call, "elicitation"))
            requests += (requests.empty() ? "" : ",") + std::string(R"("user_name":)") + kAskName;
        if (requests.empty() || !call.require_input("{" + requests + "}"))
            call.reply(mcp::ToolResult::text("Nothing to ask this client"));
    };
    s.tool(std::move(caps));

    mcp::Prompt prompt;
    prompt.name = "test_input_required_result_prompt";
    prompt.description = "A prompt that asks the user for its context";
    prompt.handler = [](mcp::Call call) {
        if (!call.input_response("user_context")) {
            call.require_input(
                R"({"user_context":{"method":"elicitation/create","params":{"message":"What context should the )"
                R"(prompt use?","requestedSchema":{"type":"object","properties":{"context":{"type":"string"}},)"
                R"("required":["context"]}}}})");
            return;
        }
        call.reply_json(R"({"messages":[{"role":"user","content":{"type":"text","text":)" +
                        slipstream::json_quote("Context: " + answered(call, "user_context", "context")) + "}}]}");
    };
    s.prompt(std::move(prompt));
}

inline void add_stateless_tools(mcp::Server& s) {
    mcp::Tool missing;
    missing.name = "test_missing_capability";
    missing.description = "Needs the client's sampling capability";
    missing.handler = [](mcp::Call call) {
        if (declares(call, "sampling")) return (void)call.reply(mcp::ToolResult::text("sampling declared"));
        call.fail(-32021, "Missing required client capability: sampling",
                  R"({"requiredCapabilities":{"sampling":{}}})");
    };
    s.tool(std::move(missing));
    s.tool(input_tool("test_streaming_elicitation", std::string(R"({"user_name":)") + kAskName + "}", {"user_name"},
                      [](mcp::Call& c) { return "Hello, " + answered(c, "user_name", "name") + "!"; }));
    mcp::Tool logging;
    logging.name = "test_logging_tool";
    logging.description = "Logs at info (sent only when the request names a log level)";
    logging.handler = [](mcp::Call call) {
        call.log(mcp::LogLevel::kInfo, R"("logging tool ran")");
        call.reply(mcp::ToolResult::text("logged"));
    };
    s.tool(std::move(logging));
    mcp::Tool tools_change;
    tools_change.name = "test_trigger_tool_change";
    tools_change.description = "Adds or removes a tool (tools/list_changed)";
    tools_change.handler = [&s](mcp::Call call) {
        if (!s.remove_tool("test_dynamic_tool")) {
            mcp::Tool dynamic;
            dynamic.name = "test_dynamic_tool";
            dynamic.description = "Added by test_trigger_tool_change";
            dynamic.handler = [](mcp::Call c) { c.reply(mcp::ToolResult::text("dynamic")); };
            s.tool(std::move(dynamic));
        }
        call.reply(mcp::ToolResult::text("tools changed"));
    };
    s.tool(std::move(tools_change));
    mcp::Tool prompts_change;
    prompts_change.name = "test_trigger_prompt_change";
    prompts_change.description = "Adds or removes a prompt (prompts/list_changed)";
    prompts_change.handler = [&s](mcp::Call call) {
        if (!s.remove_prompt("test_dynamic_prompt")) {
            mcp::Prompt dynamic;
            dynamic.name = "test_dynamic_prompt";
            dynamic.description = "Added by test_trigger_prompt_change";
            dynamic.handler = [](mcp::Call c) { c.reply_json(R"({"messages":[]})"); };
            s.prompt(std::move(dynamic));
        }
        call.reply(mcp::ToolResult::text("prompts changed"));
    };
    s.tool(std::move(prompts_change));
    // x-mcp-header: `region` is mirrored into Mcp-Param-Region (checked against the body on Streamable HTTP).
    mcp::Tool headers;
    headers.name = "test_custom_header";
    headers.description = "Echoes its region, mirrored into the Mcp-Param-Region header";
    headers.input_schema_json =
        R"({"type":"object","properties":{"region":{"type":"string","x-mcp-header":"Region"}},"required":["region"]})";
    headers.handler = [](mcp::Call call) {
        call.reply(mcp::ToolResult::text("region " + std::string(call.arguments().get("region").as_string())));
    };
    s.tool(std::move(headers));
}

}  // namespace mcp_conformance
