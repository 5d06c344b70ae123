// The test harness of the Server's unit tests: a Server driven through handle_message(), and sample tools.
#pragma once

#include <gtest/gtest.h>

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "slipstream/mcp.h"

namespace slipstream::mcp::testing {

inline constexpr const char* kInit =
    R"({"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"%V","capabilities":{},)"
    R"("clientInfo":{"name":"t","version":"1"}}})";

// A server driven through handle_message(), recording every outgoing message.
class Harness {
  public:
    explicit Harness(ServerConfig config = {}) : server(std::move(config)) {}

    // Sends `message`; returns what was sent back during the call, joined by newlines.
    std::string send(std::string_view message) {
        const std::size_t before = count();
        server.handle_message(message, [this](std::string m) {
            std::lock_guard lock(mu_);
            out_.push_back(std::move(m));
            cv_.notify_all();
        });
        return since(before);
    }
    std::string init(std::string_view version = "2025-06-18") {
        std::string text = kInit;
        text.replace(text.find("%V"), 2, version);
        return send(text);
    }
    std::size_t count() {
        std::lock_guard lock(mu_);
        return out_.size();
    }
    std::string since(std::size_t before) {
        std::lock_guard lock(mu_);
        std::string joined;
        for (std::size_t i = before; i < out_.size(); ++i)
            joined += (joined.empty() ? "" : "\n") + out_[i];
        return joined;
    }
    // Waits (bounded) until more than `n` messages were sent; returns the last.
    std::string wait_beyond(std::size_t n) {
        std::unique_lock lock(mu_);
        cv_.wait_for(lock, std::chrono::seconds(10), [&] { return out_.size() > n; });
        return out_.size() > n ? out_.back() : "";
    }

    Server server;

  private:
    std::mutex mu_;
    std::condition_variable cv_;
    std::vector<std::string> out_;
};

inline Tool add_tool() {
    Tool t;
    t.name = "add";
    t.input_schema_json =
        R"({"type":"object","properties":{"a":{"type":"number"},"b":{"type":"number"}},"required":["a","b"]})";
    t.output_schema_json = R"({"type":"object","properties":{"result":{"type":"number"}},"required":["result"]})";
    t.handler = [](Call call) {
        ToolResult r;
        r.structured_json = R"({"result":)" +
                            std::to_string(call.arguments().get("a").as_int() + call.arguments().get("b").as_int()) +
                            "}";
        call.reply(std::move(r));
    };
    return t;
}

inline Tool held_tool(std::string name, std::vector<Call>* held) {
    Tool t;
    t.name = std::move(name);
    t.handler = [held](Call call) { held->push_back(std::move(call)); };
    return t;
}

}  // namespace slipstream::mcp::testing
