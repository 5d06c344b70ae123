// Tool calling: the tools a request offers rendered into the prompt, and the model's <tool_call> blocks parsed out.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace slipstream::agent::infer {

/// One function of a request's `tools`; parameters_json is its JSON Schema, written compactly.
struct ToolSpec {
    std::string name;
    std::string description;
    std::string parameters_json;
};

struct ToolCall {
    std::string id;  // "call_" + 24 random characters
    std::string name;
    std::string arguments_json;  // compact JSON text of an object (OpenAI sends it as a string)
};

/// The protocol the prompt teaches and the parser reads (the Hermes convention Qwen2.5 and many fine-tunes
/// follow): each call is `<tool_call>{"name": ..., "arguments": {...}}</tool_call>`; results come back as
/// `<tool_response>...</tool_response>` in a user turn.
inline constexpr std::string_view kToolCallOpen = "<tool_call>";
inline constexpr std::string_view kToolCallClose = "</tool_call>";

/// The text appended to the system message: the tools as JSON and how to call them.
std::string tools_system_prompt(const std::vector<ToolSpec>& tools);

/// An assistant turn's tool calls as the model would have written them (for the conversation so far).
std::string render_tool_calls(const std::vector<ToolCall>& calls);

/// A tool result as the user turn that carries it back.
std::string render_tool_response(std::string_view content);

/// The schema of one call object {"name": ..., "arguments": {...}} for `only` (or any of the tools), for
/// tool_choice "required" / a named function: decoding is then constrained to it.
std::string tool_call_schema(const std::vector<ToolSpec>& tools, const std::string* only);

struct ParsedOutput {
    std::string content;          // the text outside the calls, trimmed
    std::vector<ToolCall> calls;  // in order; a block whose JSON is not a call object stays in content
};

/// The calls in a finished output: `<tool_call>` blocks (an unclosed last block counts when its JSON is whole),
/// or, when `whole_is_call`, the entire output as one call object (constrained decoding).
ParsedOutput parse_tool_calls(std::string_view text, bool whole_is_call);

}  // namespace slipstream::agent::infer
