// Multi round-trip requests (2026-07-28 basic/patterns/mrtr): a handler's request to the client becomes an
// input_required result; the client's retry brings the answers back (inputResponses, and the earlier rounds' in the
// sealed requestState) and the handler runs again, finding them.
#include <chrono>
#include <optional>

#include "agent/mcp/call_state.h"
#include "agent/mcp/request_state.h"
#include "agent/mcp/server_core.h"
#include "json/writer.h"

namespace slipstream::mcp::detail {

namespace {

std::int64_t wall_now_ms() {
    return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
        .count();
}

}  // namespace

bool ask_in_result(CallState& s, std::string_view method, const json::Value& params,
                   std::function<void(bool, std::string)>& on_answer) {
    if (!s.input_rounds) return false;
    RequestState state;
    std::string key;
    std::optional<std::string> answer;
    {
        std::lock_guard lock(s.mu);
        key = "r" + std::to_string(s.next_input++);
        if (auto found = s.input_answers.find(key); found != s.input_answers.end())
            answer = found->second;
        else
            state.answers = s.input_answers;
    }
    if (answer) {
        on_answer(true, std::move(*answer));
        return true;
    }
    state.principal = s.session->principal();
    state.digest = s.input_digest;
    state.expires_ms = wall_now_ms() + s.state_ttl_ms;
    std::string result;
    json::Writer w(result);
    w.begin_object();
    w.key("resultType");
    w.string("input_required");
    w.key("inputRequests");
    w.begin_object();
    w.key(key);
    w.begin_object();
    w.key("method");
    w.string(method);
    w.key("params");
    (void)w.write_value(params);
    w.end_object();
    w.end_object();
    w.key("requestState");
    w.string(seal_request_state(state, s.state_key));
    w.end_object();
    // An interim result: no caching hints (the specification's rule), the server's identity as on every result.
    std::string body = result;
    if (!s.server_info_member.empty()) {
        body.pop_back();
        body.append(",").append(s.server_info_member).push_back('}');
    }
    s.cancel(result_message(s.id_json, body));
    return true;
}

bool ServerCore::take_inputs(const Rpc& req, const std::shared_ptr<CallState>& s, std::string_view name) {
    s->input_rounds = true;
    s->state_key = state_key_;
    s->state_ttl_ms = config_.request_state_ttl_ms;
    s->input_digest = request_digest(req.message.method, name, s->arguments_json);
    const json::Value* sealed = req.message.params->find("requestState");
    const json::Value* responses = req.message.params->find("inputResponses");
    const auto refuse = [&](std::string_view why) {
        s->finish(error_message(req.message.id_json, kInvalidParams, why));
        return false;
    };
    if (sealed != nullptr && !sealed->is_null()) {
        std::optional<RequestState> state =
            sealed->is_string() ? open_request_state(sealed->as_string(), state_key_) : std::nullopt;
        // Another principal's, another request's, an expired or an altered state is refused (the spec's MUST).
        if (!state || state->principal != req.session->principal() || state->digest != s->input_digest ||
            state->expires_ms < wall_now_ms())
            return refuse("Invalid params: requestState failed verification");
        s->input_answers = std::move(state->answers);
    }
    if (responses != nullptr && !responses->is_null()) {
        if (!responses->is_object()) return refuse("Invalid params: \"inputResponses\" must be an object");
        for (const json::Member& m : responses->members()) {
            if (!m.value.is_object())
                return refuse("Invalid params: each of \"inputResponses\" must be a result object");
            s->input_answers.emplace(std::string(m.key), to_json(m.value));  // the sealed earlier rounds win
        }
    }
    return true;
}

}  // namespace slipstream::mcp::detail
