// libFuzzer target: arbitrary bytes as MCP messages (one per line) to a Server with tools, resources and prompts.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "slipstream/mcp.h"

namespace {

slipstream::mcp::Server& server() {
    static slipstream::mcp::Server* s = [] {
        auto* srv = new slipstream::mcp::Server();
        slipstream::mcp::Tool add;
        add.name = "add";
        add.input_schema_json =
            R"({"type":"object","properties":{"a":{"type":"number"},"b":{"type":"number"}},"required":["a"]})";
        add.output_schema_json = R"({"type":"object","properties":{"r":{"type":"number"}}})";
        add.handler = [](slipstream::mcp::Call c) {
            c.progress(1, 2);
            c.log(slipstream::mcp::LogLevel::kError, c.arguments_json());
            slipstream::mcp::ToolResult r;
            r.structured_json = R"({"r":1})";
            c.reply(std::move(r));
        };
        srv->tool(std::move(add));
        slipstream::mcp::ResourceTemplate t;
        t.uri_template = "x://{a}/y/{b}";
        t.name = "t";
        t.handler = [](slipstream::mcp::Call c) { c.reply_json(R"({"contents":[]})"); };
        srv->resource_template(std::move(t));
        slipstream::mcp::Prompt p;
        p.name = "p";
        p.arguments = {{"code", "", true}};
        p.handler = [](slipstream::mcp::Call) {};  // dropped unanswered: -32603
        srv->prompt(std::move(p));
        return srv;
    }();
    return *s;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    std::string_view input(reinterpret_cast<const char*>(data), size);
    auto sink = [](std::string) {};
    server().handle_message(
        R"({"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{}}})",
        sink);
    while (!input.empty()) {
        const std::size_t nl = input.find('\n');
        server().handle_message(input.substr(0, nl), sink);
        if (nl == std::string_view::npos) break;
        input.remove_prefix(nl + 1);
    }
    return 0;
}
