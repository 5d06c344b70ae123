// build_upstream_body: a client's chat completion request rewritten for the upstream (stream on, response_format).
#pragma once

#include <string>
#include <string_view>

#include "base/result.h"
#include "json/value.h"

namespace slipstream::agent::llm_proxy {

struct UpstreamBodyOptions {
    std::string default_model;  // "model" when the request has none
    bool add_response_format = true;
    bool strict = true;
    std::string schema_name = "output";
};

/// The request as sent upstream: every member of `client_json` in order, except that "stream" becomes true (added
/// when absent), "model" is added from options.default_model when absent, and, with add_response_format, a
/// missing "response_format" becomes {"type":"json_schema","json_schema":{"name","schema","strict"}} with `schema`.
/// kInvalidArgument (answered 400) naming the problem: not JSON, not an object, repeated keys, "messages" missing
/// or not an array, "n" other than 1, "stream" not a boolean.
base::Result<std::string> build_upstream_body(std::string_view client_json, const json::Value& schema,
                                              const UpstreamBodyOptions& options);

}  // namespace slipstream::agent::llm_proxy
