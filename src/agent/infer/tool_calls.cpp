// Tool calling in the Hermes convention: the system prompt that offers tools, and the parser of <tool_call> blocks.
#include "agent/infer/tool_calls.h"

#include "agent/infer/random_id.h"
#include "base/arena.h"
#include "json/parse.h"
#include "json/writer.h"

namespace slipstream::agent::infer {

namespace {

std::string_view trim(std::string_view s) {
    const auto space = [](char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; };
    while (!s.empty() && space(s.front()))
        s.remove_prefix(1);
    while (!s.empty() && space(s.back()))
        s.remove_suffix(1);
    return s;
}

// {"name": string, "arguments" | "parameters": object} -> a call; anything else -> nullopt.
std::optional<ToolCall> call_of(std::string_view json_text) {
    base::Arena arena;
    auto parsed = json::parse(trim(json_text), arena);
    if (!parsed.is_ok() || !(*parsed)->is_object()) return std::nullopt;
    const json::Value* name = (*parsed)->find("name");
    const json::Value* args = (*parsed)->find("arguments");
    if (args == nullptr) args = (*parsed)->find("parameters");
    if (name == nullptr || !name->is_string() || name->as_string().empty()) return std::nullopt;
    ToolCall call{random_id("call_"), std::string(name->as_string()), "{}"};
    if (args != nullptr) {
        if (args->is_string()) {  // some models write the arguments as a JSON string
            base::Arena inner;
            auto nested = json::parse(args->as_string(), inner);
            if (!nested.is_ok() || !(*nested)->is_object()) return std::nullopt;
            call.arguments_json.clear();
            json::Writer w(call.arguments_json);
            if (!w.write_value(**nested).is_ok()) return std::nullopt;
        } else if (args->is_object()) {
            call.arguments_json.clear();
            json::Writer w(call.arguments_json);
            if (!w.write_value(*args).is_ok()) return std::nullopt;
        } else {
            return std::nullopt;
        }
    }
    return call;
}

}  // namespace

std::string tools_system_prompt(const std::vector<ToolSpec>& tools) {
    std::string out =
        "\n\n# Tools\n\nYou may call one or more of these functions. Their signatures are within <tools></tools>:\n"
        "<tools>\n";
    for (const ToolSpec& t : tools) {
        json::Writer w(out);
        w.begin_object();
        w.key("type"), w.string("function");
        w.key("function");
        w.begin_object();
        w.key("name"), w.string(t.name);
        if (!t.description.empty()) w.key("description"), w.string(t.description);
        w.key("parameters"), w.raw(t.parameters_json);
        w.end_object();
        w.end_object();
        out += "\n";
    }
    out +=
        "</tools>\n\nTo call a function, write a JSON object with its name and arguments within "
        "<tool_call></tool_call>:\n<tool_call>\n{\"name\": <function-name>, \"arguments\": <args-json-object>}\n"
        "</tool_call>";
    return out;
}

std::string render_tool_calls(const std::vector<ToolCall>& calls) {
    std::string out;
    for (const ToolCall& c : calls) {
        if (!out.empty()) out += "\n";
        out += std::string(kToolCallOpen) + "\n";
        json::Writer w(out);
        w.begin_object();
        w.key("name"), w.string(c.name);
        w.key("arguments"), w.raw(c.arguments_json);
        w.end_object();
        out += "\n" + std::string(kToolCallClose);
    }
    return out;
}

std::string render_tool_response(std::string_view content) {
    return "<tool_response>\n" + std::string(content) + "\n</tool_response>";
}

std::string tool_call_schema(const std::vector<ToolSpec>& tools, const std::string* only) {
    std::string out;
    json::Writer w(out);
    auto one = [&](const ToolSpec& t) {
        w.begin_object();
        w.key("type"), w.string("object");
        w.key("properties");
        w.begin_object();
        w.key("name"), w.begin_object(), w.key("const"), w.string(t.name), w.end_object();
        w.key("arguments"), w.raw(t.parameters_json);
        w.end_object();
        w.key("required"), w.begin_array(), w.string("name"), w.string("arguments"), w.end_array();
        w.key("additionalProperties"), w.boolean(false);
        w.end_object();
    };
    std::vector<const ToolSpec*> chosen;
    for (const ToolSpec& t : tools)
        if (only == nullptr || t.name == *only) chosen.push_back(&t);
    if (chosen.size() == 1) {
        one(*chosen[0]);
        return out;
    }
    w.begin_object();
    w.key("anyOf");
    w.begin_array();
    for (const ToolSpec* t : chosen)
        one(*t);
    w.end_array();
    w.end_object();
    return out;
}

ParsedOutput parse_tool_calls(std::string_view text, bool whole_is_call) {
    ParsedOutput out;
    if (whole_is_call) {
        if (auto call = call_of(text)) {
            out.calls.push_back(std::move(*call));
            return out;
        }
        out.content = std::string(trim(text));
        return out;
    }
    std::string content;
    std::size_t at = 0;
    while (at < text.size()) {
        const std::size_t open = text.find(kToolCallOpen, at);
        if (open == std::string_view::npos) break;
        const std::size_t body = open + kToolCallOpen.size();
        const std::size_t close = text.find(kToolCallClose, body);
        const std::string_view inner = text.substr(body, close == std::string_view::npos ? text.npos : close - body);
        std::optional<ToolCall> call = call_of(inner);
        const std::size_t end = close == std::string_view::npos ? text.size() : close + kToolCallClose.size();
        if (call) {
            content.append(text.substr(at, open - at));
            out.calls.push_back(std::move(*call));
        } else {
            content.append(text.substr(at, end - at));
        }
        at = end;
    }
    content.append(text.substr(std::min(at, text.size())));
    out.content = std::string(trim(content));
    return out;
}

}  // namespace slipstream::agent::infer
