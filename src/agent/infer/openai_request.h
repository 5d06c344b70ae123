// CompletionRequest: a /v1/chat/completions or /v1/completions body, checked and turned into sampling settings.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <variant>
#include <vector>

#include "agent/infer/chat_template.h"
#include "agent/infer/openai_error.h"
#include "agent/infer/sampler.h"
#include "agent/infer/tool_calls.h"
#include "agent/structured/compiled_schema.h"
#include "slipstream/json_view.h"

namespace slipstream::agent::infer {

struct CompletionLimits {
    int max_n = 16;                  // choices per request ("n", times the prompts of /v1/completions)
    int max_prompts = 16;            // prompts in one /v1/completions request
    int64_t default_max_tokens = 0;  // when the request names none; 0: what is left of the context
};

struct CompletionRequest {
    bool chat = true;
    std::string model;
    std::vector<ChatMessage> messages;                // chat
    std::vector<std::string> prompts;                 // completions: text prompts
    std::vector<std::vector<int32_t>> token_prompts;  // completions: prompts given as token ids
    SamplingParams sampling;                          // max_tokens 0: not given
    int n = 1;
    bool stream = false;
    bool include_usage = false;
    bool echo = false;  // completions: the prompt precedes the text
    std::vector<std::string> stop;
    int priority = 0;
    int64_t deadline_ms = 0;  // the request ends (finish_reason "length") this long after it arrived; 0: none
    /// response_format json_object / json_schema: every choice is constrained to a document valid under it
    /// (json_object: {"type":"object"}); null for "text".
    std::shared_ptr<const structured::CompiledSchema> response_schema;
    /// chat: the functions offered; tool_choice "none", "auto", "required" or "function" (tool_choice_name).
    /// "required" and "function" also set response_schema: the output is one call object.
    std::vector<ToolSpec> tools;
    std::string tool_choice = "none";
    std::string tool_choice_name;
};

/// Largest response_format json_schema.schema, in bytes of compact JSON.
inline constexpr std::size_t kMaxResponseSchemaBytes = 64 * 1024;

/// The JSON Schemas the routes compile (the shape: types, ranges, required fields).
const char* chat_request_schema();
const char* completion_request_schema();

/// What the schema cannot say: unsupported features named, n and prompt counts, token ids in range.
/// `body` already passed the route's schema.
std::variant<CompletionRequest, OpenAIError> parse_completion_request(JsonView body, bool chat,
                                                                      const CompletionLimits& limits,
                                                                      int64_t vocab_size);

}  // namespace slipstream::agent::infer
