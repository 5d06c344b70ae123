// ToolCallStreams: the tool calls of a streamed chat completion, each call's arguments validated as they arrive
// against the parameters schema of the tool the request named.
#pragma once

#include <cstddef>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>

#include "agent/structured/compiled_schema.h"
#include "agent/structured/stream_validator.h"
#include "base/result.h"
#include "json/value.h"

namespace slipstream::agent::llm_proxy {

/// The request's tools by function name: each one's `parameters` compiled (a tool without parameters takes any
/// object).
using ToolSchemas = std::unordered_map<std::string, std::shared_ptr<const structured::CompiledSchema>>;

/// Reads `tools` from a chat completion request (absent: an empty map). kInvalidArgument naming the tool whose
/// definition is not a function with a name and an object schema, or whose schema does not compile.
base::Result<ToolSchemas> compile_tool_schemas(std::string_view client_json);

class ToolCallStreams {
  public:
    explicit ToolCallStreams(ToolSchemas schemas) : schemas_(std::move(schemas)) {}

    /// The request named tools (only then are tool calls checked).
    bool active() const { return !schemas_.empty(); }
    /// One `tool_calls` array (a delta's pieces, or a whole message's calls): names, ids and argument pieces fed
    /// to each call's validator. A failure as soon as some call's arguments cannot be valid (or name no tool): its
    /// pointer is "/tool_calls/<index>/arguments" + the pointer inside them, its offset the byte of those arguments
    /// that proved it.
    std::optional<structured::SchemaFailure> take(const json::Value& tool_calls);
    /// Some tool call arrived.
    bool any() const { return !calls_.empty(); }
    /// The end of the stream: every call's arguments must be a complete valid document. On success `out` holds
    /// {"tool_calls":[{"index","id","name","arguments"}...]} with the arguments as parsed JSON.
    std::optional<structured::SchemaFailure> finish(std::string& out);

  private:
    struct Call {
        std::string id;
        std::string name;
        std::unique_ptr<structured::StreamValidator> validator;
        std::string pending;  // argument bytes that came before the name
        std::size_t fed = 0;
    };
    std::optional<structured::SchemaFailure> feed(std::size_t index, Call& call, std::string_view piece);
    static structured::SchemaFailure located(std::size_t index, structured::SchemaFailure f);

    ToolSchemas schemas_;
    std::map<std::size_t, Call> calls_;
};

}  // namespace slipstream::agent::llm_proxy
