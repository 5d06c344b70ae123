// tools/call, resources/read, prompts/get and completion/complete: checks, then a CallState for the handler.
#include "agent/mcp/server_core.h"
#include "json/pointer.h"
#include "json/schema/error_sink.h"
#include "json/writer.h"

namespace slipstream::mcp::detail {

namespace {

constexpr json::Value kEmptyObject = json::Value::object(nullptr, 0);

// "Invalid arguments for tool 'add':\n/a: Input should be a valid number" (one line per failing pointer).
std::string validation_text(std::string_view tool, const json::schema::ErrorSink& sink) {
    std::string text = "Invalid arguments for tool '" + std::string(tool) + "':";
    for (const json::schema::ValidationError& e : sink.errors()) {
        text += '\n';
        if (e.loc.empty()) text += "(root)";
        for (const json::schema::PathSegment& seg : e.loc) {
            text += '/';
            if (seg.is_index())
                text += std::to_string(seg.index);
            else
                json::append_pointer_token(text, seg.key);
        }
        text += ": ";
        text += e.msg;
    }
    return text;
}

// The parsed `text` (built by us, so valid) in a Document of its own.
std::shared_ptr<Document> own_document(const std::string& text) {
    auto doc = std::make_shared<Document>();
    auto parsed = json::parse(text, doc->arena);
    doc->root = parsed.is_ok() ? parsed.value() : &kEmptyObject;
    return doc;
}

const json::Value* object_param(const Message& message, std::string_view key) {
    if (message.params == nullptr) return nullptr;
    const json::Value* v = message.params->find(key);
    return v != nullptr && v->is_object() ? v : nullptr;
}

}  // namespace

std::shared_ptr<CallState> ServerCore::admit(const Rpc& req, std::string name, std::uint32_t timeout_ms,
                                             std::optional<std::string> timeout_answer) {
    auto s = std::make_shared<CallState>();
    s->session = req.session;
    s->channel = req.channel;
    s->document = req.document;
    s->arguments = &kEmptyObject;
    s->arguments_json = "{}";
    s->name = std::move(name);
    s->id_json = req.message.id_json;
    s->timers = timers_;
    s->default_timeout_ms = config_.tool_timeout_ms;
    s->max_pending = config_.max_calls_per_session;
    if (const json::Value* meta = object_param(req.message, "_meta")) {
        s->meta_json = to_json(*meta);
        const json::Value* token = meta->find("progressToken");
        if (token != nullptr && (token->is_string() || token->is_integer())) s->progress_token_json = to_json(*token);
    }
    if (const Envelope* e = req.envelope) {
        s->modern = true;
        s->client_capabilities = e->client_capabilities;
        s->log_level = e->log_level;
        s->server_info_member = e->server_info_member;
    }
    switch (req.session->admit(s->id_json, s, config_.max_calls_per_session)) {
        case Session::Admit::kOk:
            break;
        case Session::Admit::kDuplicateId:
            answer_error(req, kInvalidRequest, "Invalid Request: a request with this id is in flight");
            return nullptr;
        case Session::Admit::kFull:
            answer_error(req, kServerBusy, "Server busy: too many requests in flight");
            return nullptr;
    }
    if (timeout_ms != 0) {
        std::weak_ptr<CallState> weak = s;
        const std::uint64_t id = timers_->schedule(timeout_ms, [weak, answer = std::move(timeout_answer)] {
            if (auto call = weak.lock()) call->cancel(answer);
        });
        std::lock_guard lock(s->mu);
        s->timer_id = id;
    }
    return s;
}

void ServerCore::call_tool(const Rpc& req) {
    const json::Value* name = string_param(req.message, "name");
    if (name == nullptr) return answer_error(req, kInvalidParams, "Invalid params: \"name\" must be a string");
    auto entry = registry_.tool(name->as_string());
    if (entry == nullptr) return answer_error(req, kInvalidParams, "Unknown tool: " + std::string(name->as_string()));
    const json::Value* args = req.message.params->find("arguments");
    if (args == nullptr || args->is_null()) args = &kEmptyObject;
    if (!args->is_object()) return answer_error(req, kInvalidParams, "Invalid params: \"arguments\" must be an object");
    if (!entry->input.validate(*args)) {
        json::schema::ErrorSink sink(config_.max_reported_errors);
        entry->input.validate(*args, &sink);
        return answer_result(req, R"({"content":[{"type":"text","text":)" +
                                      quote(validation_text(entry->tool.name, sink)) + R"(}],"isError":true})");
    }
    const std::uint32_t timeout = entry->tool.timeout_ms ? entry->tool.timeout_ms : config_.tool_timeout_ms;
    const std::string timed_out =
        R"({"content":[{"type":"text","text":)" +
        quote("Tool '" + entry->tool.name + "' timed out after " + std::to_string(timeout) + " ms") +
        R"(}],"isError":true})";
    auto s =
        admit(req, entry->tool.name, timeout,
              result_message(req.message.id_json, req.envelope != nullptr
                                                      ? stamp_result(timed_out, {}, req.envelope->server_info_member)
                                                      : timed_out));
    if (s == nullptr) return;
    s->tool = entry;
    s->arguments = args;
    s->arguments_json = to_json(*args);
    if (s->modern && !take_inputs(req, s, entry->tool.name)) return;
    entry->gate->enter([s] { s->start(s->tool->tool.handler, s); });
}

void ServerCore::read_resource(const Rpc& req) {
    const json::Value* uri = string_param(req.message, "uri");
    if (uri == nullptr) return answer_error(req, kInvalidParams, "Invalid params: \"uri\" must be a string");
    const std::string_view u = uri->as_string();
    std::shared_ptr<Document> vars_doc;
    CallHandler handler;
    if (auto resource = registry_.resource(u)) {
        handler = resource->resource.handler;
    } else {
        std::vector<std::pair<std::string, std::string>> vars;
        auto t = registry_.match_template(u, vars);
        if (t == nullptr)  // 2026-07-28 moved this error to -32602 (invalid params)
            return answer_error(req, req.envelope != nullptr ? kInvalidParams : kResourceNotFound, "Resource not found",
                                R"({"uri":)" + quote(u) + "}");
        handler = t->resource_template.handler;
        std::string text;
        json::Writer w(text);
        w.begin_object();
        for (const auto& [key, value] : vars) {
            w.key(key);
            w.string(value);
        }
        w.end_object();
        vars_doc = own_document(text);
    }
    auto s = admit(req, std::string(u), config_.tool_timeout_ms,
                   error_message(req.message.id_json, kInternalError, "Request timed out"));
    if (s == nullptr) return;
    if (s->modern) s->result_extra = cache_members(config_.cache_ttl_ms, false);  // a read may differ per user
    if (vars_doc) {
        s->document = vars_doc;
        s->arguments = vars_doc->root;
        s->arguments_json = to_json(*vars_doc->root);
    }
    if (s->modern && !take_inputs(req, s, u)) return;
    s->start(handler, s);
}

void ServerCore::get_prompt(const Rpc& req) {
    const json::Value* name = string_param(req.message, "name");
    if (name == nullptr) return answer_error(req, kInvalidParams, "Invalid params: \"name\" must be a string");
    auto entry = registry_.prompt(name->as_string());
    if (entry == nullptr) return answer_error(req, kInvalidParams, "Unknown prompt: " + std::string(name->as_string()));
    const json::Value* args = req.message.params->find("arguments");
    if (args == nullptr || args->is_null()) args = &kEmptyObject;
    if (!args->is_object()) return answer_error(req, kInvalidParams, "Invalid params: \"arguments\" must be an object");
    for (const json::Member& m : args->members())
        if (!m.value.is_string())
            return answer_error(req, kInvalidParams,
                                "Invalid params: argument '" + std::string(m.key) + "' must be a string");
    for (const PromptArgument& a : entry->prompt.arguments)
        if (a.required && args->find(a.name) == nullptr)
            return answer_error(req, kInvalidParams, "Invalid params: missing required argument '" + a.name + "'");
    auto s = admit(req, entry->prompt.name, config_.tool_timeout_ms,
                   error_message(req.message.id_json, kInternalError, "Request timed out"));
    if (s == nullptr) return;
    s->arguments = args;
    s->arguments_json = to_json(*args);
    if (s->modern && !take_inputs(req, s, entry->prompt.name)) return;
    s->start(entry->prompt.handler, s);
}

void ServerCore::complete(const Rpc& req) {
    const json::Value* ref = object_param(req.message, "ref");
    const json::Value* argument = object_param(req.message, "argument");
    const json::Value* type = ref != nullptr ? ref->find("type") : nullptr;
    if (type == nullptr || !type->is_string())
        return answer_error(req, kInvalidParams, "Invalid params: \"ref\" must be an object with a \"type\"");
    const json::Value* arg_name = argument != nullptr ? argument->find("name") : nullptr;
    const json::Value* arg_value = argument != nullptr ? argument->find("value") : nullptr;
    if (arg_name == nullptr || !arg_name->is_string() || arg_value == nullptr || !arg_value->is_string())
        return answer_error(req, kInvalidParams,
                            "Invalid params: \"argument\" must have string \"name\" and \"value\"");
    std::string target;
    if (type->as_string() == "ref/prompt") {
        const json::Value* n = ref->find("name");
        if (n == nullptr || !n->is_string() || registry_.prompt(n->as_string()) == nullptr)
            return answer_error(req, kInvalidParams, "Invalid params: unknown prompt in \"ref\"");
        target = n->as_string();
    } else if (type->as_string() == "ref/resource") {
        const json::Value* u = ref->find("uri");
        if (u == nullptr || !u->is_string())
            return answer_error(req, kInvalidParams, "Invalid params: \"ref\" needs a \"uri\"");
        target = u->as_string();
    } else {
        return answer_error(req, kInvalidParams, "Invalid params: unknown \"ref\" type");
    }
    auto handler = registry_.completion();
    if (handler == nullptr) return answer_result(req, R"({"completion":{"values":[],"hasMore":false}})");
    std::string text = R"({"name":)" + to_json(*arg_name) + R"(,"value":)" + to_json(*arg_value);
    if (const json::Value* context = object_param(req.message, "context")) text += R"(,"context":)" + to_json(*context);
    text += '}';
    auto s = admit(req, std::move(target), config_.tool_timeout_ms,
                   error_message(req.message.id_json, kInternalError, "Request timed out"));
    if (s == nullptr) return;
    s->document = own_document(text);
    s->arguments = s->document->root;
    s->arguments_json = std::move(text);
    const std::string ref_json = to_json(*ref);
    s->start([handler, ref_json](Call call) { (*handler)(ref_json, std::move(call)); }, s);
}

}  // namespace slipstream::mcp::detail
