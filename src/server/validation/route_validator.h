// RouteValidator: a RouteSpec compiled once; coerces and validates a request's parameters and body.
#pragma once

#include <memory>
#include <string>

#include "slipstream/route_spec.h"

namespace slipstream::detail {
struct RequestState;
}

namespace slipstream::server {

/// Compiled from a RouteSpec at registration (control plane), then shared read-only by every I/O thread.
class RouteValidator {
  public:
    virtual ~RouteValidator() = default;

    /// Compiles every schema of `spec`. Throws std::invalid_argument naming the parameter and the problem.
    static std::unique_ptr<RouteValidator> compile(const RouteSpec& spec);

    /// Reads the parameters and body of `request`, coerces and validates them. On success creates
    /// `request.arena` if needed, sets `request.arguments` (an object keyed by parameter name, every
    /// string copied into the arena) and returns true. On failure writes FastAPI's 422 body
    /// ({"detail":[...]}) into `error_body` and returns false. Thread-safe; no exceptions.
    virtual bool validate(slipstream::detail::RequestState& request, std::string* error_body) const = 0;
};

}  // namespace slipstream::server
