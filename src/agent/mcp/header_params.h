// x-mcp-header (2026-07-28 server/tools): tool parameters mirrored into `Mcp-Param-{name}` HTTP headers: found and
// checked when a tool is registered, compared with a call's arguments on Streamable HTTP.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "json/value.h"

namespace slipstream::mcp::detail {

struct HeaderParam {
    std::string name;               // the `x-mcp-header` value: the header is Mcp-Param-<name>
    std::vector<std::string> path;  // the chain of `properties` keys from the schema root
};

/// The annotated parameters of an input schema (JSON text). Throws std::invalid_argument naming the rule broken: an
/// empty or non-token name, a name repeated (case-insensitively), a parameter not of type string, integer or
/// boolean, or an annotation not reachable from the root through `properties` alone.
std::vector<HeaderParam> header_params(std::string_view tool, std::string_view input_schema_json);

/// Empty when the request's headers mirror `arguments` for every parameter (a value present needs its header, equal
/// after decoding; integers compare numerically); else the HeaderMismatch message. `header(name)` reads a request
/// header.
std::string header_params_mismatch(const std::vector<HeaderParam>& params, const json::Value& arguments,
                                   const std::function<std::optional<std::string_view>(std::string_view)>& header);

}  // namespace slipstream::mcp::detail
