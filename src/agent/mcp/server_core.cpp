// ServerCore: message entry, batches, the method table, lifecycle methods and session notifications.
#include "agent/mcp/server_core.h"

#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <utility>

#include "agent/mcp/request_state.h"
#include "json/writer.h"

namespace slipstream::mcp::detail {

void answer_result(const Rpc& req, std::string_view result_json, std::string_view extra_members) {
    if (req.envelope == nullptr) return req.channel->answer(result_message(req.message.id_json, result_json));
    req.channel->answer(result_message(req.message.id_json,
                                       stamp_result(result_json, extra_members, req.envelope->server_info_member)));
}

void answer_error(const Rpc& req, int code, std::string_view message, std::string_view data_json) {
    req.channel->answer(error_message(req.message.id_json, code, message, data_json));
}

const json::Value* string_param(const Message& message, std::string_view key) {
    if (message.params == nullptr) return nullptr;
    const json::Value* v = message.params->find(key);
    return v != nullptr && v->is_string() ? v : nullptr;
}

ServerCore::ServerCore(ServerConfig config) : config_(std::move(config)), timers_(std::make_shared<Timers>()) {
    registry_.on_change([this](ListKind kind) { broadcast(kind); });
    std::string info;
    json::Writer w(info);
    w.begin_object();
    w.key("name");
    w.string(config_.name);
    if (!config_.title.empty()) {
        w.key("title");
        w.string(config_.title);
    }
    w.key("version");
    w.string(config_.version);
    w.end_object();
    server_info_member_ = R"("_meta":{"io.modelcontextprotocol/serverInfo":)" + info + "}";
    state_key_ = config_.request_state_key.empty() ? random_state_key() : config_.request_state_key;
}

ServerCore::~ServerCore() {
    stop();
    timers_->shutdown();  // no timer callback runs while the members below go
}

json::ParseOptions ServerCore::parse_limits() const {
    json::ParseOptions o;
    o.max_depth = config_.max_json_depth;
    o.max_string_bytes = std::min(o.max_string_bytes, config_.max_message_bytes);
    o.max_members = config_.max_json_members;
    return o;
}

void ServerCore::handle_text(const std::shared_ptr<Session>& session, std::string_view text,
                             const std::shared_ptr<Channel>& channel) {
    if (text.size() > config_.max_message_bytes) {
        channel->answer(error_message("null", kInvalidRequest, "Invalid Request: message too large"));
        return;
    }
    handle(session, parse_messages(text, parse_limits()), channel);
}

void ServerCore::handle(const std::shared_ptr<Session>& session, const Incoming& incoming,
                        const std::shared_ptr<Channel>& channel) {
    if (incoming.error_code != 0) {
        channel->answer(error_message("null", incoming.error_code, incoming.error));
        return;
    }
    if (!incoming.batch) {
        dispatch({session, incoming.document, incoming.messages.front(), channel});
        return;
    }
    if (!session->features().batches) {
        channel->answer(error_message("null", kInvalidRequest,
                                      "Invalid Request: batches are only allowed in protocol version 2025-03-26"));
        return;
    }
    if (incoming.messages.size() > config_.max_batch) {
        channel->answer(error_message("null", kInvalidRequest, "Invalid Request: batch too large"));
        return;
    }
    std::size_t answers = 0;
    for (const Message& m : incoming.messages)
        answers += m.kind == MessageKind::kRequest || m.kind == MessageKind::kInvalid;
    if (answers == 0) {
        for (const Message& m : incoming.messages)
            dispatch({session, incoming.document, m, channel});
        channel->abandon();
        return;
    }
    std::shared_ptr<Channel> batch = std::make_shared<BatchChannel>(channel, answers);
    for (const Message& m : incoming.messages) {
        if (m.kind == MessageKind::kRequest && m.method == "initialize") {
            batch->answer(
                error_message(m.id_json, kInvalidRequest, "Invalid Request: initialize must not be part of a batch"));
            continue;
        }
        dispatch({session, incoming.document, m, batch});
    }
}

void ServerCore::dispatch(const Rpc& req) {
    switch (req.message.kind) {
        case MessageKind::kInvalid:
            answer_error(req, kInvalidRequest, "Invalid Request: " + req.message.error);
            return;
        case MessageKind::kResponse:
            return response(req.session, req.message);
        case MessageKind::kNotification:
            notification(req.session, req.message);
            return;
        case MessageKind::kRequest:
            request(req);
            return;
    }
}

void ServerCore::request(const Rpc& req) {
    EnvelopeRead read = read_envelope(req.message, server_info_member_);
    if (read.status != EnvelopeRead::kLegacy) return modern_request(req, std::move(read));
    const std::string_view method = req.message.method;
    if (method == "ping") return answer_result(req, "{}");
    if (method == "initialize") return initialize(req);
    if (!req.session->initialized())
        return answer_error(req, kInvalidRequest, "Invalid Request: the session is not initialized");
    if (method == "tools/call") return call_tool(req);
    if (method == "tools/list") return list(req, ListKind::kTools);
    if (method == "resources/read") return read_resource(req);
    if (method == "resources/list") return list(req, ListKind::kResources);
    if (method == "resources/templates/list") return list_templates(req);
    if (method == "resources/subscribe") return subscribe(req, true);
    if (method == "resources/unsubscribe") return subscribe(req, false);
    if (method == "prompts/list") return list(req, ListKind::kPrompts);
    if (method == "prompts/get") return get_prompt(req);
    if (method == "completion/complete") return complete(req);
    if (method == "logging/setLevel") return set_level(req);
    answer_error(req, kMethodNotFound, "Method not found: " + std::string(method));
}

bool ServerCore::answer_pending(const std::shared_ptr<Session>& session, const Message& message) {
    std::uint64_t timer = 0;
    Session::AnswerFn fn = session->take_pending(message.id_json, &timer);
    if (!fn) return false;  // unknown, or timed out already
    timers_->cancel(timer);
    const bool ok = message.result != nullptr;
    const json::Value* body = ok ? message.result : message.error_value;
    std::string text = to_json(*body);
    if (!ok && !body->is_object()) text = R"({"code":-32603,"message":"Internal error"})";
    fn(ok, std::move(text));
    return true;
}

void ServerCore::response(const std::shared_ptr<Session>& session, const Message& message) {
    if (answer_pending(session, message)) return;
    // Not ours: another process sharing the session may be waiting for it (or it timed out already).
    std::string text = R"({"jsonrpc":"2.0","id":)" + message.id_json +
                       (message.result != nullptr ? R"(,"result":)" + to_json(*message.result)
                                                  : R"(,"error":)" + to_json(*message.error_value)) +
                       "}";
    session->forward("answer", message.id_json, std::move(text));
}

void ServerCore::notification(const std::shared_ptr<Session>& session, const Message& message) {
    if (message.method == "notifications/initialized") return;
    if (message.method != "notifications/cancelled" || message.params == nullptr) return;
    const json::Value* id = message.params->find("requestId");
    if (id == nullptr || !(id->is_string() || id->is_number())) return;
    const std::string target = to_json(*id);
    if (auto call = session->find(target))
        call->cancel(std::nullopt);  // no answer to a cancelled request
    else
        session->forward("cancel", target, {});  // running in another process sharing the session, perhaps
}

void ServerCore::initialize(const Rpc& req) {
    const json::Value* requested = string_param(req.message, "protocolVersion");
    if (requested == nullptr)
        return answer_error(req, kInvalidParams, "Invalid params: \"protocolVersion\" must be a string");
    if (req.session->initialized() && !req.session->id().empty())
        return answer_error(req, kInvalidRequest, "Invalid Request: the session is already initialized");
    const std::string_view version = negotiate_version(requested->as_string());
    req.session->set_version(version);
    if (req.message.params != nullptr) {
        const json::Value* caps = req.message.params->find("capabilities");
        if (caps != nullptr && caps->is_object()) req.session->set_client_capabilities(to_json(*caps));
    }
    const Features f = features_of(version);
    std::string out;
    json::Writer w(out);
    w.begin_object();
    w.key("protocolVersion");
    w.string(version);
    w.key("capabilities");
    w.raw(server_capabilities(version));
    w.key("serverInfo");
    w.begin_object();
    w.key("name");
    w.string(config_.name);
    if (f.titles && !config_.title.empty()) {
        w.key("title");
        w.string(config_.title);
    }
    w.key("version");
    w.string(config_.version);
    w.end_object();
    if (!config_.instructions.empty()) {
        w.key("instructions");
        w.string(config_.instructions);
    }
    w.end_object();
    req.session->set_initialized();
    answer_result(req, out);
}

void ServerCore::set_level(const Rpc& req) {
    const json::Value* level = string_param(req.message, "level");
    const auto parsed = level != nullptr ? parse_level(level->as_string()) : std::nullopt;
    if (!parsed)
        return answer_error(req, kInvalidParams,
                            "Invalid params: \"level\" must be one of debug, info, notice, warning, error, critical, "
                            "alert, emergency");
    req.session->set_log_level(*parsed);
    answer_saved(req);
}

void ServerCore::subscribe(const Rpc& req, bool on) {
    const json::Value* uri = string_param(req.message, "uri");
    if (uri == nullptr) return answer_error(req, kInvalidParams, "Invalid params: \"uri\" must be a string");
    if (!on) {
        req.session->unsubscribe(std::string(uri->as_string()));
    } else if (!req.session->subscribe(std::string(uri->as_string()), config_.max_subscriptions)) {
        return answer_error(req, kServerBusy, "Too many subscriptions for this session");
    }
    answer_saved(req);
}

void ServerCore::answer_saved(const Rpc& req) {
    // Answered once the change is where other processes read the session (at once for a session in memory).
    req.session->save([channel = req.channel, id = req.message.id_json](bool saved) {
        channel->answer(saved ? result_message(id, "{}")
                              : error_message(id, kInternalError, "Internal error: the session could not be saved"));
    });
}

void ServerCore::attach(const std::shared_ptr<Session>& session) {
    std::lock_guard lock(sessions_mu_);
    std::erase_if(sessions_, [](const std::weak_ptr<Session>& s) { return s.expired(); });
    sessions_.push_back(session);
}

void ServerCore::detach(const Session* session) {
    std::lock_guard lock(sessions_mu_);
    std::erase_if(sessions_, [session](const std::weak_ptr<Session>& s) {
        auto held = s.lock();
        return held == nullptr || held.get() == session;
    });
}

void ServerCore::end_session(const std::shared_ptr<Session>& session) {
    detach(session.get());
    for (auto& call : session->calls())
        call->cancel(std::nullopt);
}

std::vector<std::shared_ptr<Session>> ServerCore::sessions() {
    std::vector<std::shared_ptr<Session>> out;
    std::lock_guard lock(sessions_mu_);
    for (const auto& weak : sessions_)
        if (auto s = weak.lock()) out.push_back(std::move(s));
    return out;
}

void ServerCore::broadcast(ListKind kind) {
    const char* method = kind == ListKind::kTools       ? "notifications/tools/list_changed"
                         : kind == ListKind::kResources ? "notifications/resources/list_changed"
                                                        : "notifications/prompts/list_changed";
    const std::string message = notification_message(method);
    for (const auto& s : sessions())
        if (s->initialized()) s->push(message);
    notify_listeners(kind, method);
}

void ServerCore::resource_updated(std::string_view uri) {
    const std::string key(uri);
    const std::string message =
        notification_message("notifications/resources/updated", R"({"uri":)" + quote(uri) + "}");
    for (const auto& s : sessions())
        if (s->subscribed(key)) s->push(message);
    notify_listeners_updated(uri);
}

void ServerCore::keep(std::shared_ptr<void> transport) {
    std::lock_guard lock(sessions_mu_);
    transports_.push_back(std::move(transport));
}

std::shared_ptr<Session> ServerCore::embedded_session() {
    std::shared_ptr<Session> session;
    bool created = false;
    {
        std::lock_guard lock(sessions_mu_);
        if (embedded_ == nullptr) {
            embedded_ = std::make_shared<Session>("", "");
            created = true;
        }
        session = embedded_;
    }
    if (created) attach(session);
    return session;
}

void ServerCore::stop() {
    stopping.store(true);
    close_listeners();
    if (const int fd = stdio_wake_fd.load(); fd >= 0) {
        const std::uint64_t one = 1;
        (void)!::write(fd, &one, sizeof one);
    }
    for (const auto& s : sessions())
        for (auto& call : s->calls())
            call->cancel(std::nullopt);
}

}  // namespace slipstream::mcp::detail
