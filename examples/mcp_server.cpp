// An MCP server over Streamable HTTP (/mcp) or stdio, with the tools, resources and prompts the tests use.
//
//   mcp_server [engine flags: --host --port --auth --api-keys-file ...] [MCP flags] [--stdio]
//   MCP flags: --stateless, --json-response, --resumable-streams, --stream-retry-ms N,
//              --allowed-origin ORIGIN, --allowed-host HOST (both repeatable), --max-message-bytes N,
//              --session-idle-ms N, --sessions-per-principal N, --replay-events N, --page-size N,
//              --tool-timeout-ms N, --mcp-store URL|sqlite (sessions in a database: postgresql://..., sqlite:///path,
//              or the word sqlite for <--data-dir>/mcp.db), --mcp-store-check-ms N, --mcp-store-poll-ms N
//              OAuth protected resource metadata (RFC 9728): --resource URL, --authorization-server URL and
//              --scope SCOPE (both repeatable), --resource-metadata-url URL
//
// Tools: add (a + b, structured), echo (text), big (a 10 KiB structured result), slow (ms, steps: progress each
// step, honours cancellation; release: ends the POST's connection, see Call::release_stream), fail (an isError
// result), touch (notifications/resources/updated for info://server), toggle (adds or removes the tool `extra`:
// tools/list_changed), stats ({"slow_cancelled": slow calls stopped by cancellation}), ask (elicitation/create to
// the client, answers its reply). Resources: info://server; template greeting://{name}. Prompt: review (code,
// required). Completions for both.
#include <atomic>
#include <charconv>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "app/database.h"
#include "app/serve_main.h"
#include "app/sessions.h"
#include "slipstream/json.h"
#include "slipstream/mcp.h"
#include "slipstream/slipstream.h"

namespace mcp = slipstream::mcp;

namespace {

std::atomic<int> slow_cancelled{0};

std::string number(double d) {
    char buf[64];
    auto [end, ec] = std::to_chars(buf, buf + sizeof buf, d);
    return ec == std::errc() ? std::string(buf, end) : "0";
}

mcp::Tool add_tool() {
    mcp::Tool t;
    t.name = "add";
    t.title = "Add two numbers";
    t.description = "Returns a + b.";
    t.input_schema_json =
        R"({"type":"object","properties":{"a":{"type":"number"},"b":{"type":"number"}},"required":["a","b"],)"
        R"("additionalProperties":false})";
    t.output_schema_json = R"({"type":"object","properties":{"result":{"type":"number"}},"required":["result"]})";
    t.annotations_json = R"({"readOnlyHint":true,"idempotentHint":true})";
    t.handler = [](mcp::Call call) {
        const double sum = call.arguments().get("a").as_double() + call.arguments().get("b").as_double();
        mcp::ToolResult r;
        r.structured_json = R"({"result":)" + number(sum) + "}";
        call.reply(std::move(r));
    };
    return t;
}

mcp::Tool echo_tool() {
    mcp::Tool t;
    t.name = "echo";
    t.description = "Echoes its text.";
    t.input_schema_json = R"({"type":"object","properties":{"text":{"type":"string"}},"required":["text"]})";
    t.handler = [](mcp::Call call) { call.reply(mcp::ToolResult::text(call.arguments().get("text").as_string())); };
    return t;
}

mcp::Tool big_tool() {
    static const std::string payload = [] {
        std::string items;
        for (int i = 0; i < 100; ++i) {
            if (i) items += ',';
            items += R"({"id":)" + std::to_string(i) + R"(,"name":"item-)" + std::to_string(1000 + i) +
                     R"(","tags":["alpha","beta","gamma"],"value":)" + number(i * 1.5) + R"(,"ok":true})";
        }
        return R"({"items":[)" + items + "]}";
    }();
    mcp::Tool t;
    t.name = "big";
    t.description = "A structured result of about 10 KiB.";
    t.output_schema_json = R"({"type":"object","properties":{"items":{"type":"array"}},"required":["items"]})";
    t.handler = [](mcp::Call call) {
        mcp::ToolResult r;
        r.structured_json = payload;
        call.reply(std::move(r));
    };
    return t;
}

// What the slow tool's thread waits on: its step timer or cancellation.
struct Stop {
    std::mutex m;
    std::condition_variable cv;
    bool stop = false;
};

mcp::Tool slow_tool() {
    mcp::Tool t;
    t.name = "slow";
    t.description = "Sleeps `ms` in `steps` steps, reporting progress; stops when cancelled.";
    t.input_schema_json = R"({"type":"object","properties":{"ms":{"type":"integer","minimum":0,"maximum":600000},)"
                          R"("steps":{"type":"integer","minimum":1,"maximum":1000},"release":{"type":"boolean"}},)"
                          R"("required":["ms"]})";
    t.handler = [](mcp::Call call) {
        auto stop = std::make_shared<Stop>();
        call.on_cancel([stop] {
            std::lock_guard lock(stop->m);
            stop->stop = true;
            stop->cv.notify_all();
        });
        std::thread([call = std::move(call), stop]() mutable {
            const long ms = static_cast<long>(call.arguments().get("ms").as_int());
            const long steps =
                call.arguments().has("steps") ? static_cast<long>(call.arguments().get("steps").as_int()) : 5;
            call.log(mcp::LogLevel::kInfo, R"("slow started")", "slow");
            // release: end the POST's connection now; the client reads the rest with GET (resumable streams).
            if (call.arguments().get("release").as_bool()) call.release_stream();
            for (long i = 1; i <= steps; ++i) {
                std::unique_lock lock(stop->m);
                if (stop->cv.wait_for(lock, std::chrono::milliseconds(ms / steps), [&] { return stop->stop; })) {
                    std::fprintf(stderr, "slow: cancelled\n");
                    slow_cancelled.fetch_add(1);
                    return;
                }
                lock.unlock();
                call.progress(static_cast<double>(i), static_cast<double>(steps), "step " + std::to_string(i));
            }
            call.reply(mcp::ToolResult::text("done"));
        }).detach();
    };
    return t;
}

mcp::Tool fail_tool() {
    mcp::Tool t;
    t.name = "fail";
    t.description = "Always fails with a tool error.";
    t.handler = [](mcp::Call call) { call.reply(mcp::ToolResult::error("this tool always fails")); };
    return t;
}

void add_everything(mcp::Server& server) {
    server.tool(add_tool()).tool(echo_tool()).tool(big_tool()).tool(slow_tool()).tool(fail_tool());
    mcp::Tool touch;
    touch.name = "touch";
    touch.description = "Announces that info://server changed.";
    touch.handler = [&server](mcp::Call call) {
        server.resource_updated("info://server");
        call.reply(mcp::ToolResult::text("touched"));
    };
    server.tool(std::move(touch));
    mcp::Tool toggle;
    toggle.name = "toggle";
    toggle.description = "Adds the tool `extra`, or removes it when present.";
    toggle.handler = [&server](mcp::Call call) {
        if (!server.remove_tool("extra")) {
            mcp::Tool extra;
            extra.name = "extra";
            extra.handler = [](mcp::Call c) { c.reply(mcp::ToolResult::text("extra")); };
            server.tool(std::move(extra));
        }
        call.reply(mcp::ToolResult::text("toggled"));
    };
    server.tool(std::move(toggle));

    mcp::Tool stats;
    stats.name = "stats";
    stats.description = "Counts of the example's tools.";
    stats.handler = [](mcp::Call call) {
        mcp::ToolResult r;
        r.structured_json = R"({"slow_cancelled":)" + std::to_string(slow_cancelled.load()) + "}";
        call.reply(std::move(r));
    };
    server.tool(std::move(stats));
    mcp::Tool ask;
    ask.name = "ask";
    ask.description = "Asks the user for a name (elicitation/create) and greets it.";
    ask.handler = [](mcp::Call call) {
        auto shared = std::make_shared<mcp::Call>(std::move(call));
        const bool sent = shared->request("elicitation/create",
                                          R"({"message":"What is your name?","requestedSchema":{"type":"object",)"
                                          R"("properties":{"name":{"type":"string"}},"required":["name"]}})",
                                          [shared](bool ok, std::string json) {
                                              shared->reply(ok ? mcp::ToolResult::text("Elicited: " + json)
                                                               : mcp::ToolResult::error("The client refused: " + json));
                                          });
        if (!sent) shared->reply(mcp::ToolResult::error("The client cannot answer elicitation requests"));
    };
    server.tool(std::move(ask));

    mcp::Resource info;
    info.uri = "info://server";
    info.name = "server-info";
    info.title = "Server information";
    info.mime_type = "application/json";
    info.handler = [](mcp::Call call) {
        call.reply_json(R"({"contents":[{"uri":"info://server","mimeType":"application/json",)"
                        R"("text":"{\"name\":\"slipstream-mcp-example\"}"}]})");
    };
    server.resource(std::move(info));

    mcp::ResourceTemplate greeting;
    greeting.uri_template = "greeting://{name}";
    greeting.name = "greeting";
    greeting.mime_type = "text/plain";
    greeting.handler = [](mcp::Call call) {
        const std::string name(call.arguments().get("name").as_string());
        call.reply_json(R"({"contents":[{"uri":)" + slipstream::json_quote("greeting://" + name) +
                        R"(,"mimeType":"text/plain","text":)" + slipstream::json_quote("Hello, " + name + "!") + "}]}");
    };
    server.resource_template(std::move(greeting));

    mcp::Prompt review;
    review.name = "review";
    review.title = "Code review";
    review.description = "Asks for a review of some code.";
    review.arguments = {{"code", "The code to review", true}};
    review.handler = [](mcp::Call call) {
        const std::string text = "Please review this code:\n\n" + std::string(call.arguments().get("code").as_string());
        call.reply_json(R"({"description":"Code review","messages":[{"role":"user","content":{"type":"text","text":)" +
                        slipstream::json_quote(text) + "}}]}");
    };
    server.prompt(std::move(review));

    server.completion([](std::string_view ref_json, mcp::Call call) {
        static const std::vector<std::string> code = {"def main():", "print('hello')", "return 0"};
        static const std::vector<std::string> names = {"alice", "bob", "carol"};
        const bool prompt = ref_json.find("ref/prompt") != std::string_view::npos;
        const std::string_view value = call.arguments().get("value").as_string();
        std::string values;
        int total = 0;
        for (const std::string& v : prompt ? code : names) {
            if (v.compare(0, value.size(), value) != 0) continue;
            if (total++) values += ',';
            values += slipstream::json_quote(v);
        }
        call.reply_json(R"({"completion":{"values":[)" + values + R"(],"total":)" + std::to_string(total) +
                        R"(,"hasMore":false}})");
    });
}

// Takes the MCP flags out of argv (the rest goes to serve_main); false on a bad value.
bool take_flags(int& argc, char** argv, mcp::ServerConfig& config, bool& stdio) {
    int out = 1;
    for (int i = 1; i < argc; ++i) {
        const std::string_view a = argv[i];
        auto value = [&](unsigned long& target) {
            if (i + 1 >= argc) return false;
            char* end = nullptr;
            target = std::strtoul(argv[++i], &end, 10);
            return *end == '\0';
        };
        unsigned long n = 0;
        if (a == "--stdio") {
            stdio = true;
        } else if (a == "--stateless") {
            config.stateless = true;
        } else if (a == "--resumable-streams") {
            config.resumable_streams = true;
        } else if (a == "--stream-retry-ms") {
            if (!value(n)) return false;
            config.stream_retry_ms = static_cast<std::uint32_t>(n);
        } else if (a == "--json-response") {
            config.json_response = true;
        } else if (a == "--allowed-origin" && i + 1 < argc) {
            config.allowed_origins.emplace_back(argv[++i]);
        } else if (a == "--allowed-host" && i + 1 < argc) {
            config.allowed_hosts.emplace_back(argv[++i]);
        } else if (a == "--max-message-bytes") {
            if (!value(n)) return false;
            config.max_message_bytes = n;
        } else if (a == "--session-idle-ms") {
            if (!value(n)) return false;
            config.session_idle_ms = static_cast<std::uint32_t>(n);
        } else if (a == "--sessions-per-principal") {
            if (!value(n)) return false;
            config.max_sessions_per_principal = static_cast<std::uint32_t>(n);
        } else if (a == "--replay-events") {
            if (!value(n)) return false;
            config.replay_events = n;
        } else if (a == "--page-size") {
            if (!value(n)) return false;
            config.page_size = n;
        } else if (a == "--resource" && i + 1 < argc) {
            config.resource = argv[++i];
        } else if (a == "--authorization-server" && i + 1 < argc) {
            config.authorization_servers.emplace_back(argv[++i]);
        } else if (a == "--scope" && i + 1 < argc) {
            config.scopes_supported.emplace_back(argv[++i]);
        } else if (a == "--resource-metadata-url" && i + 1 < argc) {
            config.resource_metadata_url = argv[++i];
        } else if (a == "--mcp-store" && i + 1 < argc) {
            config.store_url = argv[++i];
        } else if (a == "--mcp-store-check-ms") {
            if (!value(n)) return false;
            config.store_check_ms = static_cast<std::uint32_t>(n);
        } else if (a == "--mcp-store-poll-ms") {
            if (!value(n)) return false;
            config.store_poll_ms = static_cast<std::uint32_t>(n);
        } else if (a == "--stream-store-events") {
            if (!value(n)) return false;
            config.stream_store_events = n;
        } else if (a == "--stream-store-bytes") {
            if (!value(n)) return false;
            config.stream_store_bytes = n;
        } else if (a == "--stream-store-ttl-ms") {
            if (!value(n)) return false;
            config.stream_store_ttl_ms = static_cast<std::uint32_t>(n);
        } else if (a == "--tool-timeout-ms") {
            if (!value(n)) return false;
            config.tool_timeout_ms = static_cast<std::uint32_t>(n);
        } else {
            argv[out++] = argv[i];
        }
    }
    argc = out;
    argv[argc] = nullptr;
    return true;
}

}  // namespace

int main(int argc, char** argv, char** envp) {
    mcp::ServerConfig config;
    config.name = "slipstream-mcp-example";
    config.title = "Slipstream MCP example";
    config.instructions = "Tools for testing: add, echo, big, slow, fail.";
    bool stdio = false;
    if (!take_flags(argc, argv, config, stdio)) {
        std::fprintf(stderr, "mcp_server: bad value for an MCP flag\n");
        return 2;
    }
    if (stdio) {
        mcp::Server server(config);
        add_everything(server);
        return server.serve_stdio(0, 1);
    }
    std::unique_ptr<mcp::Server> server;
    return slipstream::app::serve_main(
        argc, argv, envp, "mcp_server", [&server, &config](slipstream::App& app, const slipstream::app::Config& c) {
            // "sqlite": a file in --data-dir (the engine's flag, shared with --sessions).
            if (config.store_url == "sqlite") {
                auto url = slipstream::app::data_dir_store_url(c.sessions.data_dir, "mcp.db");
                if (!url.is_ok()) throw std::runtime_error(url.status().message());
                config.store_url = std::move(url).value();
            }
            server = std::make_unique<mcp::Server>(config);
            add_everything(*server);
            server->mount(app, "/mcp");  // opens the store (throws when it cannot)
        });
}
