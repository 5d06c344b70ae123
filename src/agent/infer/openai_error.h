// OpenAIError: an error answered in OpenAI's shape, {"error": {"message", "type", "param", "code"}}.
#pragma once

#include <string>
#include <string_view>

#include "slipstream/response.h"

namespace slipstream::agent::infer {

struct OpenAIError {
    int status = 400;
    std::string message;
    std::string type = "invalid_request_error";  // or "not_found_error", "server_error", ...
    std::string param;                           // the offending field; empty: null
    std::string code;                            // e.g. "model_not_found", "context_length_exceeded"; empty: null

    Response response() const;
    /// The body alone (also sent as an SSE event when a stream fails after its head went out).
    std::string body() const;
};

/// A request the route's JSON Schema refused (Request::arguments()[kForwardedErrorsKey], FastAPI's 422 body):
/// 400 with the first error's message and its field as `param`, as OpenAI answers a malformed request.
OpenAIError validation_error(std::string_view forwarded_body);

}  // namespace slipstream::agent::infer
