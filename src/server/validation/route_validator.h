// RouteValidator: a RouteSpec compiled once; coerces and validates a request's parameters and body.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>

#include "slipstream/route_spec.h"

namespace slipstream::detail {
struct RequestState;
}

namespace slipstream::server {

/// The body written for a request body that is not UTF-8 or nests deeper than kMaxBodyDepth: FastAPI answers it
/// 400 with this document (Python's json.loads raises before pydantic runs), not 422.
inline constexpr std::string_view kBodyParseErrorBody = R"({"detail":"There was an error parsing the body"})";
/// Nesting allowed in a JSON body (Python's json.loads stops near its recursion limit of 1000).
inline constexpr std::size_t kMaxBodyDepth = 900;

/// Compiled from a RouteSpec at registration (control plane), then shared read-only by every I/O thread.
class RouteValidator {
  public:
    virtual ~RouteValidator() = default;

    /// Compiles every schema of `spec`. Throws std::invalid_argument naming the parameter and the problem.
    static std::unique_ptr<RouteValidator> compile(const RouteSpec& spec);

    /// Reads the parameters and body of `request`, coerces and validates them. On success creates
    /// `request.arena` if needed, sets `request.arguments` (an object keyed by parameter name, every
    /// string copied into the arena) and returns true. On failure writes FastAPI's 422 body
    /// ({"detail":[...]}, or kBodyParseErrorBody for an unreadable body) into `error_body` and returns false;
    /// with RouteSpec::forward_errors it returns true instead, with `request.arguments` = {kForwardedErrorsKey:
    /// that text}. Thread-safe; no exceptions.
    virtual bool validate(slipstream::detail::RequestState& request, std::string* error_body) const = 0;

    /// RouteSpec::max_body_bytes (SIZE_MAX when the route sets none).
    virtual std::size_t max_body_bytes() const = 0;
};

}  // namespace slipstream::server
