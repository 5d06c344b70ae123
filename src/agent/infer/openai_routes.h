// mount_openai_routes(): the OpenAI-compatible API (/v1/chat/completions, /v1/completions, /v1/models) on an App.
#pragma once

#include <memory>
#include <string>

#include "agent/infer/inference_engine.h"
#include "agent/infer/openai_request.h"
#include "slipstream/app.h"

namespace slipstream::agent::infer {

struct OpenAIRoutesOptions {
    std::string prefix = "/v1";
    CompletionLimits limits;
};

/// Registers, under prefix:
///   POST /chat/completions   chat messages through the model's chat template; stream or one body
///   POST /completions        text (or token-id) prompts
///   GET  /models             the served model;  GET /models/{model}
/// Bodies are checked by JSON Schema in C++; every error is OpenAI's {"error": {message, type, param, code}}
/// (400 invalid request, 404 unknown model, 503 when the scheduler's queue is full). Handlers render and tokenize
/// on the I/O thread and hand generation to the engine's scheduler. Throws std::invalid_argument on a route clash.
void mount_openai_routes(App& app, std::shared_ptr<InferenceEngine> engine, OpenAIRoutesOptions options = {});

}  // namespace slipstream::agent::infer
