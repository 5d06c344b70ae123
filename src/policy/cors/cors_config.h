// CorsConfig: the cors_* ServerOptions, split into lists and checked (control plane).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "slipstream/server_options.h"

namespace slipstream::policy::cors {

/// The methods "*" stands for in cors_allow_methods, in the order Access-Control-Allow-Methods lists them.
inline constexpr const char* kAllMethods[] = {"DELETE", "GET", "HEAD", "OPTIONS", "PATCH", "POST", "PUT", "QUERY"};

/// The cors_* options as lists. Items keep their spelling and order (and duplicates): the answers list them
/// as configured.
struct CorsConfig {
    std::vector<std::string> allow_origins;  // may hold "*"
    std::string allow_origin_regex;          // empty: none
    std::vector<std::string> allow_methods;  // "*" already replaced by kAllMethods
    std::vector<std::string> allow_headers;  // as configured; may hold "*"
    bool allow_credentials = false;
    bool allow_private_network = false;
    std::vector<std::string> expose_headers;
    std::uint32_t max_age = 600;
};

/// True when CORS is on: cors_allow_origins or cors_allow_origin_regex is set.
bool cors_enabled(const ServerOptions& options);

/// Splits and checks the cors_* options (items are separated by commas, spaces and tabs around them are
/// dropped, empty items skipped). Throws std::invalid_argument "<option>: <why>" for an origin list set but
/// empty, an origin with whitespace or control characters, or a method or header name that is not an HTTP
/// token. The regex is checked where it is compiled (CorsPolicy).
CorsConfig parse_cors_config(const ServerOptions& options);

}  // namespace slipstream::policy::cors
