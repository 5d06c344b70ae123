// ToolCallStreams: tools compiled from the request; tool-call deltas cut into per-call argument streams, each fed to
// a StreamValidator of its tool's parameters schema; the calls written out once every one is complete and valid.
#include "agent/llm_proxy/tool_calls.h"

#include "base/arena.h"
#include "json/parse.h"
#include "json/writer.h"

namespace slipstream::agent::llm_proxy {
namespace {

constexpr std::string_view kAnyObject = R"({"type":"object"})";

std::string tool_path(std::size_t i) {
    return "tools[" + std::to_string(i) + "]";
}

}  // namespace

base::Result<ToolSchemas> compile_tool_schemas(std::string_view client_json) {
    base::Arena arena;
    auto parsed = json::parse(client_json, arena);
    ToolSchemas out;
    if (!parsed.is_ok() || !(*parsed)->is_object()) return out;  // build_upstream_body reports the body itself
    const json::Value* tools = (*parsed)->find("tools");
    if (tools == nullptr || tools->is_null()) return out;
    if (!tools->is_array()) return base::Status::invalid_argument("'tools' must be an array");
    std::size_t i = 0;
    for (const json::Value& t : tools->items()) {
        const json::Value* fn = t.is_object() ? t.find("function") : nullptr;
        const json::Value* name = fn != nullptr && fn->is_object() ? fn->find("name") : nullptr;
        if (name == nullptr || !name->is_string() || name->size() == 0)
            return base::Status::invalid_argument(tool_path(i) + ": a function tool needs function.name");
        const json::Value* params = fn->find("parameters");
        std::string schema;
        if (params == nullptr || params->is_null()) {
            schema = kAnyObject;
        } else {
            if (!params->is_object() && !params->is_bool())
                return base::Status::invalid_argument(tool_path(i) + ".function.parameters must be a JSON Schema");
            json::Writer w(schema);
            SLIPSTREAM_RETURN_IF_ERROR(w.write_value(*params));
        }
        auto compiled = structured::CompiledSchema::create(schema);
        if (!compiled.is_ok())
            return base::Status::invalid_argument(tool_path(i) +
                                                  ".function.parameters: " + compiled.status().message());
        out[std::string(name->as_string())] = std::move(compiled).value();
        ++i;
    }
    return out;
}

structured::SchemaFailure ToolCallStreams::located(std::size_t index, structured::SchemaFailure f) {
    f.pointer = "/tool_calls/" + std::to_string(index) + "/arguments" + f.pointer;
    return f;
}

std::optional<structured::SchemaFailure> ToolCallStreams::take(const json::Value& tool_calls) {
    if (!active() || !tool_calls.is_array()) return std::nullopt;
    std::size_t position = 0;
    for (const json::Value& item : tool_calls.items()) {
        const std::size_t at = position++;
        if (!item.is_object()) continue;
        const json::Value* idx = item.find("index");
        const std::size_t index =
            idx != nullptr && idx->is_integer() && idx->as_int() >= 0 ? static_cast<std::size_t>(idx->as_int()) : at;
        Call& call = calls_[index];
        if (const json::Value* id = item.find("id"); id != nullptr && id->is_string() && call.id.empty())
            call.id = std::string(id->as_string());
        const json::Value* fn = item.find("function");
        if (fn == nullptr || !fn->is_object()) continue;
        if (const json::Value* name = fn->find("name");
            name != nullptr && name->is_string() && name->size() > 0 && !call.validator) {
            call.name = std::string(name->as_string());
            auto it = schemas_.find(call.name);
            if (it == schemas_.end()) {
                return located(index, {.offset = 0,
                                       .pointer = {},
                                       .keyword = "tool",
                                       .message = "the model called '" + call.name +
                                                  "', which is not one of the request's tools"});
            }
            call.validator =
                std::make_unique<structured::StreamValidator>(it->second->document(), it->second->schema());
            if (!call.pending.empty()) {
                std::string early = std::move(call.pending);
                call.pending.clear();
                if (auto f = feed(index, call, early)) return f;
            }
        }
        if (const json::Value* args = fn->find("arguments"); args != nullptr && args->is_string()) {
            if (auto f = feed(index, call, args->as_string())) return f;
        }
    }
    return std::nullopt;
}

std::optional<structured::SchemaFailure> ToolCallStreams::feed(std::size_t index, Call& call, std::string_view piece) {
    if (piece.empty()) return std::nullopt;
    if (!call.validator) {
        call.pending.append(piece);
        return std::nullopt;
    }
    call.fed += piece.size();
    if (call.validator->feed(piece) == structured::StreamState::kInvalid)
        return located(index, call.validator->failure());
    return std::nullopt;
}

std::optional<structured::SchemaFailure> ToolCallStreams::finish(std::string& out) {
    out.clear();
    json::Writer w(out);
    w.begin_object();
    w.key("tool_calls");
    w.begin_array();
    for (auto& [index, call] : calls_) {
        if (!call.validator) {
            return located(index,
                           {.offset = 0, .pointer = {}, .keyword = "tool", .message = "a tool call without a name"});
        }
        if (call.validator->finish() != structured::StreamState::kComplete) {
            structured::SchemaFailure f = call.validator->failure();
            if (call.fed == 0 && f.keyword == "json") f.message = "the tool call has no arguments";
            return located(index, std::move(f));
        }
        std::string args;
        call.validator->snapshot_json(args);
        w.begin_object();
        w.key("index");
        w.uint64(index);
        w.key("id");
        w.string(call.id);
        w.key("name");
        w.string(call.name);
        w.key("arguments");
        w.raw(args);
        w.end_object();
    }
    w.end_array();
    w.end_object();
    return std::nullopt;
}

}  // namespace slipstream::agent::llm_proxy
