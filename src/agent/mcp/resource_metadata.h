// OAuth 2.0 Protected Resource Metadata (RFC 9728) of the MCP endpoint: the document, its URL and its routes.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "slipstream/mcp.h"

namespace slipstream::mcp::detail {

inline constexpr std::string_view kWellKnownResource = "/.well-known/oauth-protected-resource";

struct ResourceMetadata {
    std::string document;            // the JSON object
    std::string url;                 // named in WWW-Authenticate
    std::vector<std::string> paths;  // routes serving the document
};

/// nullopt when `config.resource` is empty. Throws std::invalid_argument "<member>: <reason>" for an invalid
/// resource, authorization server, scope, bearer method or metadata URL.
std::optional<ResourceMetadata> resource_metadata(const ServerConfig& config, std::string_view mount_path);

/// RFC 9728 §3.1: `resource` with the well-known path inserted between its authority and its path (a path of "/"
/// alone dropped). `resource` must be an absolute http(s) URL without fragment (unchecked here).
std::string well_known_url(std::string_view resource);

}  // namespace slipstream::mcp::detail
