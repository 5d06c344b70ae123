// CallState: what a Call shares with the server: the request, its channel, and whether it is answered or cancelled.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "agent/mcp/channel.h"
#include "agent/mcp/jsonrpc.h"
#include "agent/mcp/registry.h"
#include "agent/mcp/session.h"
#include "agent/mcp/timers.h"

namespace slipstream::mcp::detail {

struct CallState {
    std::shared_ptr<Session> session;
    std::shared_ptr<Channel> channel;
    std::shared_ptr<Document> document;  // owns `arguments`
    const json::Value* arguments = nullptr;
    std::string arguments_json;
    std::string meta_json = "{}";
    std::string name;
    std::string id_json;
    std::string progress_token_json;        // empty: the request asked for no progress
    std::shared_ptr<const ToolEntry> tool;  // tools/call only: output schema and concurrency gate
    std::weak_ptr<Timers> timers;
    std::uint32_t default_timeout_ms = 0;  // of requests to the client (Call::request)
    std::size_t max_pending = 0;           // requests to the client pending per session
    /// A request of the 2026-07-28 envelope: what it carried replaces the session's negotiated state, and its
    /// result carries `resultType` (plus `result_extra`, the caching hints of resources/read) and the server's
    /// identity (`server_info_member`).
    bool modern = false;
    std::string client_capabilities;
    std::optional<LogLevel> log_level;
    std::string result_extra;
    std::string server_info_member;
    /// Multi round-trip requests (tools/call, prompts/get, resources/read under the envelope): Call::request() asks
    /// the client with an input_required result keyed "r<n>" (the n-th request of the handler), and finds the
    /// client's answers of earlier rounds here on the retry (from the sealed requestState and inputResponses).
    bool input_rounds = false;
    std::map<std::string, std::string> input_answers;
    std::size_t next_input = 0;
    std::string input_digest;
    std::string_view state_key;  // the server's HMAC key (lives as long as the server)
    std::uint32_t state_ttl_ms = 0;

    std::atomic<bool> done{false};
    std::atomic<bool> cancelled{false};
    std::mutex mu;  // guards the members below
    std::function<void()> on_cancel;
    std::optional<double> last_progress;
    std::uint64_t timer_id = 0;
    bool gate_held = false;

    /// Answers once: `message` to the channel (nullopt: abandon, no answer), then releases the timer, the id and
    /// the tool's slot. False when already done.
    bool finish(std::optional<std::string> message);
    /// Marks the call cancelled and runs its on_cancel callback; then finishes it with `message` (nullopt: no
    /// answer). False when it was already done.
    bool cancel(std::optional<std::string> message);
    /// What finish() and cancel() do once they claimed the call.
    void settle(std::optional<std::string> message);
    /// The version's features: the envelope's, else the session's.
    Features features() const { return modern ? features_of(kModernVersion) : session->features(); }
    /// `{"jsonrpc":"2.0","id":..,"result":..}` of `result_object` (stamped under the envelope); `has_meta`: the
    /// result has its own `_meta` (the server's identity is then left out).
    std::string result(std::string_view result_object, bool has_meta = false) const;
    /// Starts the tool handler once the gate gives a slot (or leaves the gate when the call already ended).
    void start(const CallHandler& handler, std::shared_ptr<CallState> self);
};

/// Call::request() under the 2026-07-28 envelope (multi round-trip requests): runs `on_answer` at once with the
/// client's answer when the retry carried it; else ends the call (as a cancellation, so the handler learns it) with
/// an input_required result asking for it, and `on_answer` never runs. False when this request cannot ask
/// (completion/complete, subscriptions/listen).
bool ask_in_result(CallState& s, std::string_view method, const json::Value& params,
                   std::function<void(bool, std::string)>& on_answer);
/// Call::require_input(): checks `input_requests` (an object of {method, params} objects whose methods the request's
/// capabilities allow), then ends the call with the input_required result. False when it may not.
bool require_input(CallState& s, const json::Value& input_requests);
/// True when the request's `_meta` capabilities declare what `method` of a request to the client needs (sampling,
/// elicitation, roots; other methods need none).
bool client_allows(const CallState& s, std::string_view method);

/// The result object of a tools/call answer, or an error message (-32603) when the structured result does not
/// match the output schema or is not a JSON object.
std::string tool_result_message(const CallState& state, const ToolResult& result);

}  // namespace slipstream::mcp::detail
