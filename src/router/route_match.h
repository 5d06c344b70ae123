// The outcome of one router lookup: the route, its captured parameters, or the allowed methods.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

#include "router/method.h"
#include "router/param_type.h"
#include "router/route_pattern.h"

namespace slipstream::server {

/// The caller's handle for a route (an index into its handler table, say).
using RouteId = std::uint32_t;

/// One captured path parameter. `name` points into the Router, `value` into the matched path.
struct RouteParam {
    std::string_view name;
    std::string_view value;
    ParamType type = ParamType::kStr;
    std::int64_t int_value = 0;  // set for kInt
    double float_value = 0;      // set for kFloat
};

/// What match() found.
enum class MatchOutcome : std::uint8_t {
    kFound,             // route_id, pattern, params (and implicit_head) are set
    kNotFound,          // no pattern matches the path: 404
    kMethodNotAllowed,  // some pattern matches, none for this method: 405 with Allow = `allowed`
    kOptions,           // OPTIONS with no explicit OPTIONS route: answer 204 with Allow = `allowed`
};

/// Filled by Router::match(). Views stay valid while the Router is unmodified and the path lives.
struct RouteMatch {
    RouteId route_id = 0;
    std::string_view pattern;    // the route's template ("/users/{id}"), for metrics and logs
    bool implicit_head = false;  // a HEAD request served by the GET route: send no body
    MethodSet allowed;           // kMethodNotAllowed and kOptions only
    MethodSet declared;          // the same, without the implicit HEAD and OPTIONS: what routes were added for
    std::size_t param_count = 0;
    // Only the first `param_count` are ever set or read: left uninitialised (768 bytes a request otherwise).
    union {
        RouteParam params[kMaxParams];
    };

    RouteMatch() {}  // NOLINT: user-provided so that `params` is not initialised

    std::span<const RouteParam> captured() const { return {params, param_count}; }

    /// The captured parameter called `name`; nullptr when the route has none by that name.
    const RouteParam* find(std::string_view name) const {
        for (std::size_t i = 0; i < param_count; ++i) {
            if (params[i].name == name) return &params[i];
        }
        return nullptr;
    }
};

}  // namespace slipstream::server
