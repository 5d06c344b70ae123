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

bool client_allows(const CallState& s, std::string_view method) {
    // The capability a method needs: its first path segment ("sampling/createMessage" -> "sampling").
    const std::string_view family = method.substr(0, method.find('/'));
    if (family != "sampling" && family != "elicitation" && family != "roots") return true;
    Document doc;
    auto caps = json::parse(s.modern ? s.client_capabilities : s.session->client_capabilities(), doc.arena);
    return caps.is_ok() && caps.value()->is_object() && caps.value()->find(family) != nullptr;
}

namespace {

// Ends the call with `{"resultType":"input_required","inputRequests":...,"requestState":...}`, the state sealing the
// answers received so far.
void answer_input_required(CallState& s, std::string_view input_requests_json) {
    RequestState state;
    {
        std::lock_guard lock(s.mu);
        state.answers = s.input_answers;
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
    w.raw(input_requests_json);
    w.key("requestState");
    w.string(seal_request_state(state, s.state_key));
    w.end_object();
    // An interim result: no caching hints (the specification's rule), the server's identity as on every result.
    if (!s.server_info_member.empty()) {
        result.pop_back();
        result.append(",").append(s.server_info_member).push_back('}');
    }
    s.cancel(result_message(s.id_json, result));
}

}  // namespace

bool ask_in_result(CallState& s, std::string_view method, const json::Value& params,
                   std::function<void(bool, std::string)>& on_answer) {
    if (!s.input_rounds) return false;
    std::string key;
    std::optional<std::string> answer;
    {
        std::lock_guard lock(s.mu);
        key = "r" + std::to_string(s.next_input++);
        if (auto found = s.input_answers.find(key); found != s.input_answers.end()) answer = found->second;
    }
    if (answer) {
        on_answer(true, std::move(*answer));
        return true;
    }
    std::string requests;
    json::Writer w(requests);
    w.begin_object();
    w.key(key);
    w.begin_object();
    w.key("method");
    w.string(method);
    w.key("params");
    (void)w.write_value(params);
    w.end_object();
    w.end_object();
    answer_input_required(s, requests);
    return true;
}

bool require_input(CallState& s, const json::Value& input_requests) {
    if (!s.input_rounds || !input_requests.is_object() || input_requests.size() == 0) return false;
    for (const json::Member& m : input_requests.members()) {
        if (!m.value.is_object()) return false;
        const json::Value* method = m.value.find("method");
        const json::Value* params = m.value.find("params");
        if (method == nullptr || !method->is_string() || (params != nullptr && !params->is_object())) return false;
        const std::string_view name = method->as_string();
        if (name != "elicitation/create" && name != "sampling/createMessage" && name != "roots/list") return false;
        if (!client_allows(s, name)) return false;  // the specification's MUST NOT
    }
    if (s.done.load()) return false;
    answer_input_required(s, to_json(input_requests));
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
