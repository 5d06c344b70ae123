// Call: the handle a handler answers through (see include/slipstream/mcp.h), and ToolResult's constructors.
#include <cmath>
#include <exception>
#include <limits>

#include "agent/mcp/call_state.h"
#include "json/writer.h"
#include "slipstream/mcp.h"

namespace slipstream::mcp {

using detail::CallState;

ToolResult ToolResult::error(std::string_view message) {
    ToolResult r = text(message);
    r.is_error = true;
    return r;
}

ToolResult ToolResult::text(std::string_view text) {
    ToolResult r;
    r.content_json = R"([{"type":"text","text":)" + detail::quote(text) + "}]";
    return r;
}

Call::Call(std::shared_ptr<CallState> state) : state_(std::move(state)) {}
Call::Call(Call&&) noexcept = default;
Call& Call::operator=(Call&& other) noexcept {
    if (this != &other) {
        Call old(std::move(*this));  // answers for the call this one held, as its destruction would
        state_ = std::move(other.state_);
    }
    return *this;
}

Call::~Call() {
    if (state_ == nullptr || state_->done.load()) return;
    if (std::uncaught_exceptions() > 0 && state_->tool) {
        // A tool that threw: an isError result without internals (the spec's tool error), not a protocol error.
        reply(ToolResult::error("Tool '" + state_->name + "' failed"));
        return;
    }
    state_->finish(detail::error_message(state_->id_json, detail::kInternalError, "Internal error"));
}

JsonView Call::arguments() const {
    return JsonView(reinterpret_cast<const slipstream::detail::JsonNode*>(state_->arguments));
}

std::string_view Call::arguments_json() const {
    return state_->arguments_json;
}
std::string_view Call::meta_json() const {
    return state_->meta_json;
}
std::string_view Call::name() const {
    return state_->name;
}
std::string_view Call::session_id() const {
    return state_->session->id();
}
std::string_view Call::principal() const {
    return state_->session->principal();
}
std::string_view Call::request_id() const {
    return state_->id_json;
}

bool Call::cancelled() const {
    return state_->cancelled.load();
}

void Call::on_cancel(std::function<void()> fn) {
    {
        std::lock_guard lock(state_->mu);
        if (!state_->cancelled.load()) {
            state_->on_cancel = std::move(fn);
            return;
        }
    }
    if (fn) fn();
}

bool Call::progress(double progress, std::optional<double> total, std::string_view message) {
    CallState& s = *state_;
    if (s.done.load() || s.progress_token_json.empty()) return false;
    if (!std::isfinite(progress) || (total && !std::isfinite(*total))) return false;
    {
        std::lock_guard lock(s.mu);
        if (s.last_progress && progress <= *s.last_progress) return false;
        s.last_progress = progress;
    }
    std::string params;
    json::Writer w(params);
    w.begin_object();
    w.key("progressToken");
    w.raw(s.progress_token_json);
    w.key("progress");
    (void)w.number(progress);
    if (total) {
        w.key("total");
        (void)w.number(*total);
    }
    if (!message.empty() && s.features().annotations) {
        w.key("message");
        w.string(message);
    }
    w.end_object();
    s.channel->notify(detail::notification_message("notifications/progress", params));
    return true;
}

bool Call::log(LogLevel level, std::string_view data_json, std::string_view logger) {
    CallState& s = *state_;
    if (s.done.load()) return false;
    // Under the 2026-07-28 envelope only a request that named a level gets log messages.
    if (s.modern ? (!s.log_level || level < *s.log_level) : level < s.session->log_level()) return false;
    detail::Document doc;
    auto parsed = json::parse(data_json, doc.arena);
    if (!parsed.is_ok()) return false;
    std::string params;
    json::Writer w(params);
    w.begin_object();
    w.key("level");
    w.string(detail::level_name(level));
    if (!logger.empty()) {
        w.key("logger");
        w.string(logger);
    }
    w.key("data");
    (void)w.write_value(*parsed.value());
    w.end_object();
    s.channel->notify(detail::notification_message("notifications/message", params));
    return true;
}

std::string Call::client_capabilities_json() const {
    return state_->modern ? state_->client_capabilities : state_->session->client_capabilities();
}

bool Call::request(std::string_view method, std::string_view params_json,
                   std::function<void(bool ok, std::string json)> on_answer, std::uint32_t timeout_ms) {
    CallState& s = *state_;
    if (s.done.load() || !on_answer || (!s.modern && !s.session->answerable())) return false;
    detail::Document doc;
    auto params = json::parse(params_json, doc.arena);
    if (!params.is_ok() || !params.value()->is_object()) return false;
    if (!detail::client_allows(s, method)) return false;
    if (s.modern) return detail::ask_in_result(s, method, *params.value(), on_answer);
    auto id = s.session->add_pending(std::move(on_answer), s.max_pending ? s.max_pending : 1);
    if (!id) return false;
    const std::uint32_t ms = timeout_ms ? timeout_ms : s.default_timeout_ms;
    if (auto timers = s.timers.lock(); timers && ms) {
        std::weak_ptr<detail::Session> session = s.session;
        const std::uint64_t timer = timers->schedule(ms, [session, id = *id] {
            auto held = session.lock();
            if (held == nullptr) return;
            if (auto fn = held->take_pending(id)) fn(false, R"({"code":-32001,"message":"Request timed out"})");
        });
        s.session->set_pending_timer(*id, timer);
    }
    std::string message = R"({"jsonrpc":"2.0","id":)" + *id + R"(,"method":)" + detail::quote(method) +
                          R"(,"params":)" + detail::to_json(*params.value()) + "}";
    s.channel->notify(std::move(message));
    return true;
}

std::optional<std::string> Call::input_response(std::string_view key) const {
    CallState& s = *state_;
    std::lock_guard lock(s.mu);
    auto found = s.input_answers.find(std::string(key));
    if (found == s.input_answers.end()) return std::nullopt;
    return found->second;
}

bool Call::require_input(std::string_view input_requests_json) {
    CallState& s = *state_;
    if (s.done.load() || !s.modern) return false;
    detail::Document doc;
    auto parsed = json::parse(input_requests_json, doc.arena);
    if (!parsed.is_ok()) return false;
    return detail::require_input(s, *parsed.value());
}

bool Call::release_stream() {
    return !state_->done.load() && state_->channel->release();
}

bool Call::reply(ToolResult result) {
    if (state_->done.load() || state_->cancelled.load()) return false;
    return state_->finish(detail::tool_result_message(*state_, result));
}

bool Call::reply_json(std::string_view result_object_json) {
    if (state_->done.load() || state_->cancelled.load()) return false;
    detail::Document doc;
    auto parsed = json::parse(result_object_json, doc.arena);
    if (!parsed.is_ok() || !parsed.value()->is_object())
        return state_->finish(detail::error_message(state_->id_json, detail::kInternalError, "Internal error"));
    return state_->finish(state_->result(result_object_json, parsed.value()->find("_meta") != nullptr));
}

bool Call::fail(int code, std::string_view message, std::string_view data_json) {
    if (state_->done.load() || state_->cancelled.load()) return false;
    if (!data_json.empty()) {
        detail::Document doc;
        if (!json::parse(data_json, doc.arena).is_ok()) data_json = {};
    }
    return state_->finish(detail::error_message(state_->id_json, code, message, data_json));
}

}  // namespace slipstream::mcp
