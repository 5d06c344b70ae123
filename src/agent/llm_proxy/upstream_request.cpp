// build_upstream_body: parse the client's request, check what a single validated stream needs, write it back.
#include "agent/llm_proxy/upstream_request.h"

#include "base/arena.h"
#include "json/parse.h"
#include "json/writer.h"

namespace slipstream::agent::llm_proxy {

base::Result<std::string> build_upstream_body(std::string_view client_json, const json::Value& schema,
                                              const UpstreamBodyOptions& options) {
    base::Arena arena;
    json::ParseOptions po;
    po.duplicate_keys = json::DuplicateKeys::kReject;
    json::ParseError error;
    base::Result<const json::Value*> parsed = json::parse(client_json, arena, po, &error);
    if (!parsed.is_ok())
        return base::Status::invalid_argument("the request body is not valid JSON: " + error.message + " at byte " +
                                              std::to_string(error.offset));
    const json::Value& req = **parsed;
    if (!req.is_object()) return base::Status::invalid_argument("the request body must be a JSON object");
    const json::Value* messages = req.find("messages");
    if (messages == nullptr || !messages->is_array())
        return base::Status::invalid_argument("'messages' must be an array of chat messages");
    if (const json::Value* n = req.find("n"); n != nullptr && !n->is_null()) {
        if (!n->is_integer() || n->as_int() != 1)
            return base::Status::invalid_argument("'n' must be 1: one validated stream per request");
    }
    if (const json::Value* s = req.find("stream"); s != nullptr && !s->is_bool() && !s->is_null())
        return base::Status::invalid_argument("'stream' must be a boolean");
    std::string out;
    out.reserve(client_json.size() + 64 + (options.add_response_format ? 256 : 0));
    json::Writer w(out);
    w.begin_object();
    bool has_model = false;
    bool has_format = false;
    for (const json::Member& m : req.members()) {
        if (m.key == "stream") continue;
        has_model = has_model || m.key == "model";
        has_format = has_format || m.key == "response_format";
        w.key(m.key);
        SLIPSTREAM_RETURN_IF_ERROR(w.write_value(m.value));
    }
    w.key("stream");
    w.boolean(true);
    if (!has_model && !options.default_model.empty()) {
        w.key("model");
        w.string(options.default_model);
    }
    if (!has_format && options.add_response_format) {
        w.key("response_format");
        w.begin_object();
        w.key("type");
        w.string("json_schema");
        w.key("json_schema");
        w.begin_object();
        w.key("name");
        w.string(options.schema_name);
        w.key("schema");
        SLIPSTREAM_RETURN_IF_ERROR(w.write_value(schema));
        w.key("strict");
        w.boolean(options.strict);
        w.end_object();
        w.end_object();
    }
    w.end_object();
    return out;
}

}  // namespace slipstream::agent::llm_proxy
