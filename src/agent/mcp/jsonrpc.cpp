// parse_messages(), classify() and the writers of JSON-RPC 2.0 answers.
#include "agent/mcp/jsonrpc.h"

#include "json/writer.h"

namespace slipstream::mcp::detail {

namespace {

bool valid_id(const json::Value& id) {
    return id.is_string() || id.is_integer() || id.type() == json::Type::kDouble;
}

}  // namespace

std::string to_json(const json::Value& value) {
    std::string out;
    json::Writer w(out);
    (void)w.write_value(value);
    return out;
}

std::string quote(std::string_view text) {
    std::string out;
    json::Writer(out).string(text);
    return out;
}

Message classify(const json::Value& value) {
    Message m;
    if (!value.is_object()) {
        m.error = "a message must be a JSON object";
        return m;
    }
    const json::Value* jsonrpc = value.find("jsonrpc");
    const json::Value* id = value.find("id");
    if (id != nullptr && valid_id(*id)) m.id_json = to_json(*id);
    if (jsonrpc == nullptr || !jsonrpc->is_string() || jsonrpc->as_string() != "2.0") {
        m.error = "\"jsonrpc\" must be \"2.0\"";
        return m;
    }
    if (id != nullptr && !valid_id(*id)) {
        m.error = "\"id\" must be a string or a number";
        return m;
    }
    const json::Value* method = value.find("method");
    if (method == nullptr) {
        const bool has_result = value.find("result") != nullptr;
        const bool has_error = value.find("error") != nullptr;
        if (id == nullptr || has_result == has_error) {
            m.error = "a message needs a \"method\", or an \"id\" and one of \"result\" or \"error\"";
            return m;
        }
        m.kind = MessageKind::kResponse;
        m.result = value.find("result");
        m.error_value = value.find("error");
        return m;
    }
    if (!method->is_string() || method->as_string().empty()) {
        m.error = "\"method\" must be a non-empty string";
        return m;
    }
    m.method = method->as_string();
    const json::Value* params = value.find("params");
    if (params != nullptr && !params->is_object()) {
        m.error = "\"params\" must be an object";
        return m;
    }
    m.params = params;
    m.kind = id == nullptr ? MessageKind::kNotification : MessageKind::kRequest;
    return m;
}

Incoming parse_messages(std::string_view text, const json::ParseOptions& limits) {
    Incoming in;
    in.document = std::make_shared<Document>();
    json::ParseError perr;
    auto parsed = json::parse(text, in.document->arena, limits, &perr);
    if (!parsed.is_ok()) {
        const bool limit = perr.kind == json::ParseErrorKind::kLimit;
        in.error_code = limit ? kInvalidRequest : kParseError;
        in.error = limit ? "Invalid Request: " + perr.message : "Parse error: " + perr.message;
        return in;
    }
    const json::Value* root = parsed.value();
    in.document->root = root;
    if (root->is_array()) {
        in.batch = true;
        if (root->size() == 0) {
            in.error_code = kInvalidRequest;
            in.error = "Invalid Request: empty batch";
            return in;
        }
        in.messages.reserve(root->size());
        for (const json::Value& item : root->items())
            in.messages.push_back(classify(item));
        return in;
    }
    in.messages.push_back(classify(*root));
    return in;
}

std::string result_message(std::string_view id_json, std::string_view result_json) {
    std::string out;
    out.reserve(result_json.size() + id_json.size() + 32);
    out.append(R"({"jsonrpc":"2.0","id":)").append(id_json).append(R"(,"result":)").append(result_json).push_back('}');
    return out;
}

std::string error_message(std::string_view id_json, int code, std::string_view message, std::string_view data_json) {
    std::string out;
    out.append(R"({"jsonrpc":"2.0","id":)").append(id_json.empty() ? "null" : id_json);
    out.append(R"(,"error":{"code":)").append(std::to_string(code)).append(R"(,"message":)").append(quote(message));
    if (!data_json.empty()) out.append(R"(,"data":)").append(data_json);
    out.append("}}");
    return out;
}

std::string notification_message(std::string_view method, std::string_view params_json) {
    std::string out;
    out.append(R"({"jsonrpc":"2.0","method":)").append(quote(method));
    if (!params_json.empty()) out.append(R"(,"params":)").append(params_json);
    out.push_back('}');
    return out;
}

}  // namespace slipstream::mcp::detail
