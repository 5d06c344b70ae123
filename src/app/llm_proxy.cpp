// open_llm_proxy(): LlmProxySettings to an LlmProxy and its route.
#include "app/llm_proxy.h"

#include <fstream>
#include <sstream>
#include <stdexcept>

namespace slipstream::app {
namespace {

base::Result<std::string> read_file(const std::string& path, const char* option) {
    std::ifstream in(path, std::ios::binary);
    if (!in) return base::Status::invalid_argument(std::string(option) + ": cannot read " + path);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

}  // namespace

base::Result<std::unique_ptr<LlmProxy>> open_llm_proxy(const Config& config, App& app) {
    const LlmProxySettings& s = config.llm_proxy;
    if (s.upstream.empty()) return std::unique_ptr<LlmProxy>();
    if (s.schema_file.empty())
        return base::Status::invalid_argument("--llm-proxy-schema: a JSON Schema file is required with --llm-upstream");
    SLIPSTREAM_ASSIGN_OR_RETURN(std::string schema, read_file(s.schema_file, "--llm-proxy-schema"));
    LlmUpstreamOptions up;
    up.base_url = s.upstream;
    up.api_key = s.api_key;
    if (!s.api_key_file.empty()) {
        SLIPSTREAM_ASSIGN_OR_RETURN(std::string key, read_file(s.api_key_file, "--llm-upstream-api-key-file"));
        std::size_t end = key.find_first_of("\r\n");
        up.api_key = key.substr(0, end);
    }
    up.verify_tls = s.verify_tls;
    up.ca_file = s.ca_file;
    up.connect_timeout_ms = static_cast<std::uint32_t>(s.connect_timeout_ms);
    up.first_byte_timeout_ms = static_cast<std::uint32_t>(s.first_byte_timeout_ms);
    up.idle_timeout_ms = static_cast<std::uint32_t>(s.idle_timeout_ms);
    up.total_timeout_ms = static_cast<std::uint32_t>(s.total_timeout_ms);
    up.max_connections = s.max_connections;
    up.http2 = s.http2 == "off"               ? UpstreamHttp2::kOff
               : s.http2 == "prior-knowledge" ? UpstreamHttp2::kPriorKnowledge
                                              : UpstreamHttp2::kAuto;
    up.max_streams = static_cast<std::uint32_t>(s.max_streams);
    LlmRouteOptions route;
    route.schema = std::move(schema);
    route.format = s.format == "ndjson" ? StructuredFormat::kNdjson : StructuredFormat::kSse;
    route.call.events = s.events == "delta" ? StructuredEvents::kDelta : StructuredEvents::kPartial;
    route.call.default_model = s.model;
    route.call.add_response_format = s.response_format;
    route.call.max_output_bytes = s.max_output_bytes;
    route.max_request_bytes = s.max_request_bytes;
    try {
        auto proxy = std::make_unique<LlmProxy>(std::move(up));
        proxy->mount(app, s.route, std::move(route));
        return proxy;
    } catch (const std::invalid_argument& e) {
        return base::Status::invalid_argument(e.what());
    }
}

}  // namespace slipstream::app
