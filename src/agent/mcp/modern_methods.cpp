// The 2026-07-28 entry (basic/versioning): requests carrying their own envelope, server/discover and
// subscriptions/listen (basic/patterns/subscriptions).
#include <unordered_set>

#include "agent/mcp/server_core.h"
#include "json/writer.h"

namespace slipstream::mcp::detail {

/// One open subscriptions/listen stream: what it asked for, and the request that carries it.
struct Listener {
    std::shared_ptr<CallState> call;  // under ServerCore::sessions_mu_ once listed
    bool tools = false;
    bool prompts = false;
    bool resources = false;
    std::unordered_set<std::string> uris;
    std::string meta_member;  // `"_meta":{"io.modelcontextprotocol/subscriptionId":<id>}`

    /// `method` with `params_members` (without braces; may be empty) and the subscription id.
    void send(std::string_view method, std::string_view params_members) const {
        const std::shared_ptr<CallState>& held = call;
        if (held == nullptr || held->done.load()) return;
        std::string params = "{" + meta_member;
        if (!params_members.empty()) params.append(",").append(params_members);
        params.push_back('}');
        held->channel->notify(notification_message(method, params));
    }
};

void ServerCore::modern_request(const Rpc& req, EnvelopeRead read) {
    if (read.status == EnvelopeRead::kInvalid) return answer_error(req, kInvalidParams, read.error);
    if (read.status == EnvelopeRead::kUnsupported)
        return answer_error(req, kUnsupportedProtocolVersion, "Unsupported protocol version",
                            unsupported_version_data(read.requested));
    const Rpc modern{req.session, req.document, req.message, req.channel, &read.envelope};
    const std::string_view method = req.message.method;
    if (method == "server/discover") return discover(modern);
    if (method == "tools/call") return call_tool(modern);
    if (method == "tools/list") return list(modern, ListKind::kTools);
    if (method == "resources/read") return read_resource(modern);
    if (method == "resources/list") return list(modern, ListKind::kResources);
    if (method == "resources/templates/list") return list_templates(modern);
    if (method == "prompts/list") return list(modern, ListKind::kPrompts);
    if (method == "prompts/get") return get_prompt(modern);
    if (method == "completion/complete") return complete(modern);
    if (method == "subscriptions/listen") return listen(modern);
    // initialize, ping, logging/setLevel, resources/subscribe and the like are not methods of this version.
    answer_error(req, kMethodNotFound, "Method not found: " + std::string(method));
}

void ServerCore::discover(const Rpc& req) {
    std::string out;
    json::Writer w(out);
    w.begin_object();
    w.key("supportedVersions");
    w.begin_array();
    for (const std::string& v : supported_protocol_versions())
        w.string(v);
    w.end_array();
    w.key("capabilities");
    w.raw(server_capabilities(req.envelope->version));
    if (!config_.instructions.empty()) {
        w.key("instructions");
        w.string(config_.instructions);
    }
    w.end_object();
    answer_result(req, out, cache_members(config_.cache_ttl_ms, true));
}

void ServerCore::listen(const Rpc& req) {
    const json::Value* filter = req.message.params != nullptr ? req.message.params->find("notifications") : nullptr;
    if (filter == nullptr || !filter->is_object())
        return answer_error(req, kInvalidParams, "Invalid params: \"notifications\" must be an object");
    auto listener = std::make_shared<Listener>();
    const auto flag = [&](std::string_view key, bool& into) {
        const json::Value* v = filter->find(key);
        if (v == nullptr || v->is_null()) return true;
        if (!v->is_bool()) return false;
        into = v->as_bool();
        return true;
    };
    if (!flag("toolsListChanged", listener->tools) || !flag("promptsListChanged", listener->prompts) ||
        !flag("resourcesListChanged", listener->resources))
        return answer_error(req, kInvalidParams, "Invalid params: a list-changed filter must be a boolean");
    std::string uris_json;
    if (const json::Value* uris = filter->find("resourceSubscriptions"); uris != nullptr && !uris->is_null()) {
        if (!uris->is_array())
            return answer_error(req, kInvalidParams, "Invalid params: \"resourceSubscriptions\" must be an array");
        if (uris->size() > config_.max_subscriptions)
            return answer_error(req, kInvalidParams, "Invalid params: too many resourceSubscriptions");
        for (const json::Value& u : uris->items()) {
            if (!u.is_string())
                return answer_error(req, kInvalidParams,
                                    "Invalid params: \"resourceSubscriptions\" must hold URI strings");
            listener->uris.emplace(u.as_string());
        }
        uris_json = to_json(*uris);
    }
    auto s = admit(req, "subscriptions/listen", 0, std::nullopt);
    if (s == nullptr) return;
    listener->call = s;
    listener->meta_member = R"("_meta":{"io.modelcontextprotocol/subscriptionId":)" + s->id_json + "}";
    {
        std::lock_guard lock(sessions_mu_);
        listeners_.push_back(listener);
    }
    {
        // The stream ends (client gone, notifications/cancelled) with its request: the listener goes too.
        std::lock_guard lock(s->mu);
        std::weak_ptr<Listener> weak = listener;
        s->on_cancel = [this, weak] { drop_listener(weak.lock().get()); };
    }
    // The acknowledgment names what we honor: everything of the filter (all four kinds are supported).
    std::string agreed = R"("notifications":{)";
    bool first = true;
    const auto add = [&](std::string_view member) {
        if (!first) agreed.push_back(',');
        agreed.append(member);
        first = false;
    };
    if (listener->tools) add(R"("toolsListChanged":true)");
    if (listener->prompts) add(R"("promptsListChanged":true)");
    if (listener->resources) add(R"("resourcesListChanged":true)");
    if (!uris_json.empty()) add(R"("resourceSubscriptions":)" + uris_json);
    agreed.push_back('}');
    listener->send("notifications/subscriptions/acknowledged", agreed);
}

std::vector<std::shared_ptr<Listener>> ServerCore::listeners() {
    std::lock_guard lock(sessions_mu_);
    return listeners_;
}

void ServerCore::drop_listener(const Listener* listener) {
    std::lock_guard lock(sessions_mu_);
    std::erase_if(listeners_, [listener](const std::shared_ptr<Listener>& l) { return l.get() == listener; });
}

void ServerCore::notify_listeners(ListKind kind, std::string_view method) {
    for (const auto& l : listeners())
        if ((kind == ListKind::kTools && l->tools) || (kind == ListKind::kPrompts && l->prompts) ||
            (kind == ListKind::kResources && l->resources))
            l->send(method, {});
}

void ServerCore::notify_listeners_updated(std::string_view uri) {
    const std::string key(uri);
    const std::string member = R"("uri":)" + quote(uri);
    for (const auto& l : listeners())
        if (l->uris.count(key)) l->send("notifications/resources/updated", member);
}

void ServerCore::close_listeners() {
    // Graceful closure: the listen request's result, carrying its subscription id, ends each stream.
    std::vector<std::shared_ptr<Listener>> all;
    {
        std::lock_guard lock(sessions_mu_);
        all.swap(listeners_);
    }
    for (const auto& l : all)
        l->call->finish(result_message(l->call->id_json, R"({"resultType":"complete",)" + l->meta_member + "}"));
}

}  // namespace slipstream::mcp::detail
