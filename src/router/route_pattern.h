// Parses a route pattern ("/users/{id:int}/files/{rest:path}") into static runs and parameters.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "router/param_type.h"

namespace slipstream::server {

/// Most parameters one pattern may declare, and so most a match can capture.
inline constexpr std::size_t kMaxParams = 16;

/// One piece of a pattern: a run of literal bytes, or one parameter.
struct PatternPart {
    bool is_param = false;
    std::string text;                  // the literal bytes, or the parameter name
    ParamType type = ParamType::kStr;  // parameters only
};

/// A parsed pattern. Literal runs and parameters alternate; every parameter starts right after a
/// '/' and ends at a '/' or the end; a kPath parameter is the last part.
struct RoutePattern {
    std::string text;  // the pattern as registered
    std::vector<PatternPart> parts;
    std::size_t param_count = 0;
};

/// Parses `pattern`. Control plane: throws std::invalid_argument whose message quotes the pattern and
/// names the problem and its byte offset: not starting with '/', unbalanced braces, an empty or
/// non-identifier name, an unknown type, a duplicate name, a parameter sharing its segment with
/// literal bytes ("/a/x{y}" or "/{a}{b}"), a path parameter that is not last, more than kMaxParams.
RoutePattern parse_route_pattern(std::string_view pattern);

}  // namespace slipstream::server
