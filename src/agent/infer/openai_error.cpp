// OpenAI-shaped error bodies, and FastAPI-style validation failures turned into them.
#include "agent/infer/openai_error.h"

#include "base/arena.h"
#include "json/parse.h"
#include "json/writer.h"

namespace slipstream::agent::infer {

std::string OpenAIError::body() const {
    std::string out;
    json::Writer w(out);
    w.begin_object();
    w.key("error");
    w.begin_object();
    w.key("message");
    w.string(message);
    w.key("type");
    w.string(type);
    w.key("param");
    param.empty() ? w.null() : w.string(param);
    w.key("code");
    code.empty() ? w.null() : w.string(code);
    w.end_object();
    w.end_object();
    return out;
}

Response OpenAIError::response() const {
    return Response::json(body(), status);
}

OpenAIError validation_error(std::string_view forwarded_body) {
    OpenAIError e;
    base::Arena arena;
    auto parsed = json::parse(forwarded_body, arena);
    const json::Value* detail = parsed.is_ok() ? (*parsed)->find("detail") : nullptr;
    if (detail == nullptr || !detail->is_array() || detail->size() == 0) {
        e.message = "We could not parse the JSON body of your request. The body must be a JSON object.";
        return e;
    }
    const json::Value& first = detail->items()[0];
    std::string where;
    if (const json::Value* loc = first.find("loc"); loc != nullptr && loc->is_array()) {
        for (const json::Value& part : loc->items()) {
            if (part.is_string() && part.as_string() == "body" && where.empty()) continue;
            if (part.is_string()) {
                where += (where.empty() ? "" : ".") + std::string(part.as_string());
            } else if (part.is_integer()) {
                where += "[" + std::to_string(part.as_int()) + "]";
            }
        }
    }
    const json::Value* msg = first.find("msg");
    const std::string text(msg != nullptr && msg->is_string() ? msg->as_string() : "invalid value");
    e.message =
        where.empty() ? "The body must be a JSON object sent as application/json: " + text : "'" + where + "': " + text;
    e.param = where;
    return e;
}

}  // namespace slipstream::agent::infer
