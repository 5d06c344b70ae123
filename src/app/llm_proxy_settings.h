// LlmProxySettings: the validated LLM proxy route (--llm-upstream and its knobs), opened by open_llm_proxy().
#pragma once

#include <cstdint>
#include <string>

namespace slipstream::app {

/// Read like every other option (flags > SLIPSTREAM_* > config file > defaults).
struct LlmProxySettings {
    std::string upstream;      // --llm-upstream: the OpenAI-compatible base URL; empty: no proxy route
    std::string api_key;       // sent as a Bearer token (better: SLIPSTREAM_LLM_UPSTREAM_API_KEY or the key file)
    std::string api_key_file;  // the key is this file's first line
    std::string ca_file;       // CA certificates for the upstream's TLS; empty: the system store
    bool verify_tls = true;
    std::uint64_t connect_timeout_ms = 10'000;
    std::uint64_t first_byte_timeout_ms = 60'000;
    std::uint64_t idle_timeout_ms = 60'000;
    std::uint64_t total_timeout_ms = 0;  // 0: none
    std::uint64_t max_connections = 64;
    std::string http2 = "auto";            // or "off", "prior-knowledge"
    std::uint64_t max_streams = 100;       // HTTP/2 streams at once on the upstream connection
    std::string route = "/v1/structured";  // POST route
    std::string schema_file;               // the JSON Schema the output must satisfy
    std::string format = "sse";            // or "ndjson"
    std::string events = "partial";        // or "delta"
    std::string model;                     // "model" when a request names none
    bool response_format = true;           // add response_format (json_schema) to requests without one
    std::uint64_t max_output_bytes = 1u << 20;
    std::uint64_t max_request_bytes = 1u << 20;
};

}  // namespace slipstream::app
