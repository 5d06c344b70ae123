// Reading OpenAI completion bodies: schema for the shape, code for the rest.
#include "agent/infer/openai_request.h"

#include "agent/structured/schema_cache.h"
#include "slipstream/json.h"

namespace slipstream::agent::infer {

namespace {

// Fields both endpoints share (OpenAI's ranges; top_k, min_p, repetition_penalty, ignore_eos, priority as vLLM).
#define SLIPSTREAM_COMMON_FIELDS                                                                        \
    R"("model":{"type":"string","maxLength":256},)"                                                     \
    R"("max_tokens":{"type":["integer","null"],"minimum":1},)"                                          \
    R"("temperature":{"type":["number","null"],"minimum":0,"maximum":2},)"                              \
    R"("top_p":{"type":["number","null"],"minimum":0,"maximum":1},)"                                    \
    R"("top_k":{"type":["integer","null"],"minimum":-1},)"                                              \
    R"("min_p":{"type":["number","null"],"minimum":0,"maximum":1},)"                                    \
    R"("repetition_penalty":{"type":["number","null"],"exclusiveMinimum":0,"maximum":10},)"             \
    R"("presence_penalty":{"type":["number","null"],"minimum":-2,"maximum":2},)"                        \
    R"("frequency_penalty":{"type":["number","null"],"minimum":-2,"maximum":2},)"                       \
    R"("n":{"type":["integer","null"],"minimum":1,"maximum":128},)"                                     \
    R"("seed":{"type":["integer","null"]},)"                                                            \
    R"("stream":{"type":["boolean","null"]},)"                                                          \
    R"("stream_options":{"type":["object","null"],"properties":{"include_usage":{"type":"boolean"}}},)" \
    R"("stop":{"anyOf":[{"type":"null"},{"type":"string","maxLength":256},)"                            \
    R"({"type":"array","maxItems":4,"items":{"type":"string","minLength":1,"maxLength":256}}]},)"       \
    R"("ignore_eos":{"type":["boolean","null"]},)"                                                      \
    R"("priority":{"type":["integer","null"],"minimum":-1000,"maximum":1000},)"                         \
    R"("deadline_ms":{"type":["integer","null"],"minimum":1,"maximum":86400000},)"                      \
    R"("user":{"type":["string","null"]},)"                                                             \
    R"("response_format":{"type":["object","null"],"required":["type"],)"                               \
    R"("properties":{"type":{"enum":["text","json_object","json_schema"]},)"                            \
    R"("json_schema":{"type":"object","required":["name"],"properties":{)"                              \
    R"("name":{"type":"string","maxLength":64},"description":{"type":"string"},)"                       \
    R"("schema":{"type":["object","boolean"]},"strict":{"type":["boolean","null"]}}}}})"

}  // namespace

const char* chat_request_schema() {
    return R"({"type":"object","required":["messages"],"properties":{)" SLIPSTREAM_COMMON_FIELDS
           R"(,"messages":{"type":"array","minItems":1,"maxItems":4096,"items":{"type":"object","required":["role"],)"
           R"("properties":{"role":{"enum":["system","developer","user","assistant","tool"]},)"
           R"("content":{"anyOf":[{"type":"null"},{"type":"string"},{"type":"array","maxItems":1024,"items":)"
           R"({"type":"object","required":["type"],"properties":{"type":{"type":"string"},"text":{"type":"string"}}}}]},)"
           R"("name":{"type":"string"},"tool_call_id":{"type":"string"},)"
           R"("tool_calls":{"type":["array","null"],"maxItems":128,"items":{"type":"object","required":["function"],)"
           R"("properties":{"id":{"type":"string"},"type":{"const":"function"},"function":{"type":"object",)"
           R"("required":["name","arguments"],"properties":{"name":{"type":"string"},"arguments":{"type":"string"}}}}}}}}},)"
           R"("tools":{"type":["array","null"],"maxItems":128,"items":{"type":"object","required":["type","function"],)"
           R"("properties":{"type":{"const":"function"},"function":{"type":"object","required":["name"],"properties":{)"
           R"("name":{"type":"string","pattern":"^[a-zA-Z0-9_-]{1,64}$"},"description":{"type":"string"},)"
           R"("parameters":{"type":"object"},"strict":{"type":["boolean","null"]}}}}}},)"
           R"("tool_choice":{"anyOf":[{"type":"null"},{"enum":["none","auto","required"]},{"type":"object",)"
           R"("required":["type","function"],"properties":{"type":{"const":"function"},"function":{"type":"object",)"
           R"("required":["name"],"properties":{"name":{"type":"string"}}}}}]},)"
           R"("parallel_tool_calls":{"type":["boolean","null"]},)"
           R"("max_completion_tokens":{"type":["integer","null"],"minimum":1},)"
           R"("logprobs":{"type":["boolean","null"]},)"
           R"("top_logprobs":{"type":["integer","null"],"minimum":0,"maximum":20}}})";
}

const char* completion_request_schema() {
    return R"({"type":"object","required":["prompt"],"properties":{)" SLIPSTREAM_COMMON_FIELDS
           R"(,"prompt":{"anyOf":[{"type":"string"},{"type":"array","minItems":1,"items":{"type":"string"}},)"
           R"({"type":"array","minItems":1,"items":{"type":"integer","minimum":0}},)"
           R"({"type":"array","minItems":1,"items":{"type":"array","minItems":1,"items":{"type":"integer","minimum":0}}}]},)"
           R"("logprobs":{"type":["integer","null"],"minimum":0,"maximum":5},)"
           R"("echo":{"type":["boolean","null"]},)"
           R"("suffix":{"type":["string","null"]},)"
           R"("best_of":{"type":["integer","null"],"minimum":1,"maximum":1}}})";
}

#undef SLIPSTREAM_COMMON_FIELDS

namespace {

OpenAIError unsupported(std::string message, std::string param) {
    OpenAIError e;
    e.message = std::move(message);
    e.param = std::move(param);
    return e;
}

bool present(JsonView body, std::string_view key) {
    return body.has(key) && !body.get(key).is_null();
}

std::string message_content(JsonView content) {
    if (content.kind() == JsonView::Kind::kString) return std::string(content.as_string());
    std::string out;  // an array of parts: the text parts joined
    for (std::size_t i = 0; i < content.size(); ++i) {
        JsonView part = content.at(i);
        if (part.get("type").as_string() == "text") out += part.get("text").as_string();
    }
    return out;
}

// Compiled response schemas by their text, shared by every request of the process (a repeated schema, the usual
// case for an application, compiles once).
structured::CompiledSchemaCache& schema_cache() {
    static structured::CompiledSchemaCache cache;
    return cache;
}

// The schema a response_format asks for: null for "text"; {"type":"object"} for json_object; json_schema's
// schema (absent: any JSON document) compiled once for every choice.
std::variant<std::shared_ptr<const structured::CompiledSchema>, OpenAIError> response_schema(JsonView format) {
    const std::string_view type = format.get("type").as_string();
    if (type == "text") return std::shared_ptr<const structured::CompiledSchema>();
    std::string text = R"({"type":"object"})";
    if (type == "json_schema") {
        JsonView schema = format.get("json_schema").get("schema");
        text = "true";
        if (schema.node() != nullptr && !schema.is_null()) text = json_write(schema);
        if (text.size() > kMaxResponseSchemaBytes)
            return unsupported("response_format.json_schema.schema is larger than " +
                                   std::to_string(kMaxResponseSchemaBytes) + " bytes",
                               "response_format");
    }
    base::Result<std::shared_ptr<const structured::CompiledSchema>> compiled = schema_cache().get(text);
    if (!compiled.is_ok())
        return unsupported("Invalid schema for response_format: " + std::string(compiled.status().message()),
                           "response_format");
    return std::move(compiled).value();
}

// tools and tool_choice: the functions offered, and whether the model may, must, or must call one named.
std::optional<OpenAIError> read_tools(JsonView body, CompletionRequest& r) {
    JsonView tools = body.get("tools");
    for (std::size_t i = 0; i < tools.size(); ++i) {
        JsonView f = tools.at(i).get("function");
        ToolSpec t{std::string(f.get("name").as_string()), std::string(f.get("description").as_string()),
                   R"({"type":"object","properties":{}})"};
        if (f.has("parameters")) t.parameters_json = json_write(f.get("parameters"));
        if (t.parameters_json.size() > kMaxResponseSchemaBytes)
            return unsupported("the parameters of tool '" + t.name + "' are larger than " +
                                   std::to_string(kMaxResponseSchemaBytes) + " bytes",
                               "tools");
        for (const ToolSpec& other : r.tools)
            if (other.name == t.name) return unsupported("two tools are named '" + t.name + "'", "tools");
        r.tools.push_back(std::move(t));
    }
    JsonView choice = body.get("tool_choice");
    r.tool_choice = r.tools.empty() ? "none" : "auto";
    if (choice.kind() == JsonView::Kind::kString) {
        r.tool_choice = std::string(choice.as_string());
    } else if (choice.kind() == JsonView::Kind::kObject) {
        r.tool_choice = "function";
        r.tool_choice_name = std::string(choice.get("function").get("name").as_string());
    }
    if (r.tool_choice != "none" && r.tools.empty()) return unsupported("tool_choice needs tools", "tool_choice");
    if (r.tool_choice == "function") {
        bool known = false;
        for (const ToolSpec& t : r.tools)
            known = known || t.name == r.tool_choice_name;
        if (!known) return unsupported("tool_choice names no tool: '" + r.tool_choice_name + "'", "tool_choice");
    }
    if (r.tool_choice == "required" || r.tool_choice == "function") {
        if (r.response_schema)
            return unsupported("response_format cannot be combined with a required tool call", "response_format");
        auto compiled =
            schema_cache().get(tool_call_schema(r.tools, r.tool_choice == "function" ? &r.tool_choice_name : nullptr));
        if (!compiled.is_ok())
            return unsupported("Invalid tool parameters: " + std::string(compiled.status().message()), "tools");
        r.response_schema = std::move(compiled).value();
    }
    return std::nullopt;
}

// Messages into template turns: tool results as user turns, an assistant's calls written as the model writes
// them, and the offered tools appended to the system message (one is added when there is none).
void read_messages(JsonView messages, CompletionRequest& r) {
    for (std::size_t i = 0; i < messages.size(); ++i) {
        JsonView m = messages.at(i);
        std::string role(m.get("role").as_string());
        std::string content = message_content(m.get("content"));
        if (role == "tool") {
            r.messages.push_back(ChatMessage{"user", render_tool_response(content)});
            continue;
        }
        JsonView calls = m.get("tool_calls");
        if (role == "assistant" && calls.size() > 0) {
            std::vector<ToolCall> written;
            for (std::size_t j = 0; j < calls.size(); ++j) {
                JsonView f = calls.at(j).get("function");
                written.push_back(ToolCall{std::string(calls.at(j).get("id").as_string()),
                                           std::string(f.get("name").as_string()),
                                           std::string(f.get("arguments").as_string())});
            }
            content += (content.empty() ? "" : "\n") + render_tool_calls(written);
        }
        r.messages.push_back(ChatMessage{std::move(role), std::move(content)});
    }
    if (r.tool_choice == "none") return;
    const std::string offer = tools_system_prompt(r.tools);
    if (!r.messages.empty() && (r.messages[0].role == "system" || r.messages[0].role == "developer")) {
        r.messages[0].content += offer;
    } else {
        r.messages.insert(r.messages.begin(), ChatMessage{"system", offer.substr(2)});
    }
}

}  // namespace

std::variant<CompletionRequest, OpenAIError> parse_completion_request(JsonView body, bool chat,
                                                                      const CompletionLimits& limits,
                                                                      int64_t vocab_size) {
    CompletionRequest r;
    r.chat = chat;
    r.model = std::string(body.get("model").as_string());
    SamplingParams& s = r.sampling;
    if (present(body, "temperature")) s.temperature = static_cast<float>(body.get("temperature").as_double());
    if (present(body, "top_p")) s.top_p = static_cast<float>(body.get("top_p").as_double());
    if (present(body, "top_k")) s.top_k = static_cast<int32_t>(std::max<int64_t>(0, body.get("top_k").as_int()));
    if (present(body, "min_p")) s.min_p = static_cast<float>(body.get("min_p").as_double());
    if (present(body, "repetition_penalty"))
        s.repetition_penalty = static_cast<float>(body.get("repetition_penalty").as_double());
    if (present(body, "presence_penalty"))
        s.presence_penalty = static_cast<float>(body.get("presence_penalty").as_double());
    if (present(body, "frequency_penalty"))
        s.frequency_penalty = static_cast<float>(body.get("frequency_penalty").as_double());
    if (present(body, "seed")) {
        s.seed = static_cast<uint64_t>(body.get("seed").as_int());
        s.has_seed = true;
    }
    s.ignore_eos = body.get("ignore_eos").as_bool();
    s.max_tokens = 0;
    for (const char* key : {"max_tokens", "max_completion_tokens"})
        if (present(body, key)) s.max_tokens = body.get(key).as_int();
    if (s.max_tokens == 0) s.max_tokens = limits.default_max_tokens;
    if (present(body, "n")) r.n = static_cast<int>(body.get("n").as_int());
    r.stream = body.get("stream").as_bool();
    r.include_usage = body.get("stream_options").get("include_usage").as_bool();
    r.priority = static_cast<int>(body.get("priority").as_int());
    r.deadline_ms = body.get("deadline_ms").as_int();
    JsonView stop = body.get("stop");
    if (stop.kind() == JsonView::Kind::kString) {
        if (!stop.as_string().empty()) r.stop.emplace_back(stop.as_string());
    } else {
        for (std::size_t i = 0; i < stop.size(); ++i)
            r.stop.emplace_back(stop.at(i).as_string());
    }
    if (present(body, "response_format")) {
        std::variant<std::shared_ptr<const structured::CompiledSchema>, OpenAIError> format =
            response_schema(body.get("response_format"));
        if (auto* e = std::get_if<OpenAIError>(&format)) return std::move(*e);
        r.response_schema = std::get<0>(std::move(format));
    }
    if (!chat && present(body, "tools")) return unsupported("tools need /v1/chat/completions", "tools");

    if (chat) {
        if (body.get("logprobs").as_bool())
            s.top_logprobs =
                present(body, "top_logprobs") ? static_cast<int32_t>(body.get("top_logprobs").as_int()) : 0;
        else if (present(body, "top_logprobs"))
            return unsupported("top_logprobs needs logprobs to be true", "top_logprobs");
        if (std::optional<OpenAIError> e = read_tools(body, r)) return std::move(*e);
        read_messages(body.get("messages"), r);
    } else {
        if (present(body, "logprobs")) s.top_logprobs = static_cast<int32_t>(body.get("logprobs").as_int());
        r.echo = body.get("echo").as_bool();
        if (present(body, "suffix")) return unsupported("suffix is not supported by this model", "suffix");
        JsonView prompt = body.get("prompt");
        if (prompt.kind() == JsonView::Kind::kString) {
            r.prompts.emplace_back(prompt.as_string());
        } else if (prompt.at(0).kind() == JsonView::Kind::kString) {
            for (std::size_t i = 0; i < prompt.size(); ++i)
                r.prompts.emplace_back(prompt.at(i).as_string());
        } else {
            auto add_tokens = [&](JsonView list) -> bool {
                std::vector<int32_t> ids;
                for (std::size_t i = 0; i < list.size(); ++i) {
                    const int64_t id = list.at(i).as_int();
                    if (id < 0 || id >= vocab_size) return false;
                    ids.push_back(static_cast<int32_t>(id));
                }
                r.token_prompts.push_back(std::move(ids));
                return true;
            };
            bool ok = true;
            if (prompt.at(0).kind() == JsonView::Kind::kArray) {
                for (std::size_t i = 0; i < prompt.size() && ok; ++i)
                    ok = add_tokens(prompt.at(i));
            } else {
                ok = add_tokens(prompt);
            }
            if (!ok)
                return unsupported("prompt token ids must be below the vocabulary size " + std::to_string(vocab_size),
                                   "prompt");
        }
        const std::size_t prompts = r.prompts.size() + r.token_prompts.size();
        if (prompts > static_cast<std::size_t>(limits.max_prompts))
            return unsupported("at most " + std::to_string(limits.max_prompts) + " prompts per request", "prompt");
    }
    const std::size_t prompts = chat ? 1 : r.prompts.size() + r.token_prompts.size();
    if (static_cast<int64_t>(r.n) * static_cast<int64_t>(prompts) > limits.max_n)
        return unsupported("at most " + std::to_string(limits.max_n) + " choices per request (n times the prompts)",
                           "n");
    return r;
}

}  // namespace slipstream::agent::infer
