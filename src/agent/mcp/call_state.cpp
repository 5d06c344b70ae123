// CallState::finish(), cancel(), start() and the tools/call result writer.
#include "agent/mcp/call_state.h"

#include "agent/mcp/envelope.h"
#include "json/parse.h"
#include "json/writer.h"

namespace slipstream::mcp::detail {

bool CallState::finish(std::optional<std::string> message) {
    bool expected = false;
    if (!done.compare_exchange_strong(expected, true)) return false;
    settle(std::move(message));
    return true;
}

bool CallState::cancel(std::optional<std::string> message) {
    // Claimed first, so a handler woken by on_cancel cannot answer in between (its answer is dropped).
    bool expected = false;
    if (!done.compare_exchange_strong(expected, true)) return false;
    std::function<void()> fn;
    {
        std::lock_guard lock(mu);
        cancelled.store(true);
        fn = std::move(on_cancel);
        on_cancel = nullptr;
    }
    if (fn) fn();
    settle(std::move(message));
    return true;
}

void CallState::settle(std::optional<std::string> message) {
    std::uint64_t timer = 0;
    bool held = false;
    {
        std::lock_guard lock(mu);
        timer = timer_id;
        held = gate_held;
        gate_held = false;
        on_cancel = nullptr;
    }
    if (auto t = timers.lock(); t && timer) t->cancel(timer);
    session->forget(id_json, this);
    if (message)
        channel->answer(std::move(*message));
    else
        channel->abandon();
    if (held && tool) tool->gate->leave();
}

void CallState::start(const CallHandler& handler, std::shared_ptr<CallState> self) {
    bool run = false;
    {
        std::lock_guard lock(mu);
        if (!done.load()) gate_held = run = true;
    }
    if (!run) {
        if (tool) tool->gate->leave();  // the call ended while it waited: its slot goes to the next one
        return;
    }
    try {
        handler(Call(std::move(self)));
    } catch (...) {
        // ~Call answered while the exception unwound (an isError result for a tool, else -32603).
    }
}

std::string CallState::result(std::string_view result_object, bool has_meta) const {
    if (!modern) return result_message(id_json, result_object);
    return result_message(
        id_json, stamp_result(result_object, result_extra, has_meta ? std::string_view() : server_info_member));
}

std::string tool_result_message(const CallState& state, const ToolResult& result) {
    const bool structured = !result.structured_json.empty();
    std::string_view structured_text;
    if (structured && result.structured_checked) {
        structured_text = result.structured_json;
    } else if (structured) {
        Document doc;
        auto parsed = json::parse(result.structured_json, doc.arena);
        bool ok = parsed.is_ok() && parsed.value()->is_object();
        if (ok && !result.is_error && state.tool && state.tool->output.compiled())
            ok = state.tool->output.validate(*parsed.value());
        if (!ok) return error_message(state.id_json, kInternalError, "Internal error: invalid tool result");
        structured_text = result.structured_json;  // valid JSON (just parsed): sent as written
    } else if (!result.is_error && state.tool && state.tool->output.compiled()) {
        return error_message(state.id_json, kInternalError, "Internal error: invalid tool result");
    }
    std::string_view content = result.content_json;
    while (!content.empty() && (content.front() == ' ' || content.front() == '\n'))
        content.remove_prefix(1);
    if (content.empty() || content.front() != '[')
        return error_message(state.id_json, kInternalError, "Internal error: invalid tool result");
    // One buffer for the whole message (the handshake era's envelope around the result written first; 2026-07-28
    // stamps the result object afterwards): the structured text is copied once, escaped once when it is also the
    // text block.
    const bool text_block = structured && content == "[]";  // older clients read the structured result from text
    const bool structured_member = structured && state.features().titles;
    std::string out;
    out.reserve(state.id_json.size() + result.content_json.size() +
                (text_block ? structured_text.size() + structured_text.size() / 4 + 48 : 0) +
                (structured_member ? structured_text.size() : 0) + 96);
    if (!state.modern) out.append(R"({"jsonrpc":"2.0","id":)").append(state.id_json).append(R"(,"result":)");
    out += R"({"content":)";
    if (text_block) {
        out += R"([{"type":"text","text":)";
        json::Writer(out).string(structured_text);
        out += "}]";
    } else {
        out += result.content_json;
    }
    if (structured_member) out.append(R"(,"structuredContent":)").append(structured_text);
    out += result.is_error ? R"(,"isError":true})" : R"(,"isError":false})";
    if (state.modern) return state.result(out);
    out.push_back('}');
    return out;
}

}  // namespace slipstream::mcp::detail
