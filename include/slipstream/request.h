// Request: the read-only view of one HTTP request that a C++ handler receives.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "slipstream/json_view.h"

namespace slipstream {

namespace detail {
struct RequestState;
}

/// A view of one request. Valid for the duration of the handler call; an asynchronous handler
/// that answers later may keep using it until it sends its response (the server keeps the bytes
/// alive until then). All accessors are cheap (no allocation unless they return std::string).
/// Not thread-safe: use it from one thread at a time.
class Request {
  public:
    explicit Request(detail::RequestState* state) : state_(state) {}

    /// The request method as sent ("GET", "POST", ...).
    std::string_view method() const;
    /// The percent-decoded path, without the query string ("/users/42").
    std::string_view path() const;
    /// The raw request target as sent ("/users/42?x=1").
    std::string_view target() const;
    /// The raw query string after '?', without it ("" when absent).
    std::string_view query_string() const;
    /// The route template that matched ("/users/{id}").
    std::string_view route() const;
    /// "HTTP/1.1", "HTTP/1.0", "HTTP/2".
    std::string_view version() const;

    /// A path parameter captured by the route ("id" for "/users/{id}"), or nullopt.
    std::optional<std::string_view> path_param(std::string_view name) const;
    /// The first value of a query parameter, percent-decoded, or nullopt.
    std::optional<std::string> query(std::string_view name) const;
    /// The first header with this name (case-insensitive), or nullopt.
    std::optional<std::string_view> header(std::string_view name) const;
    /// Calls `fn(name, value)` for every header in the order received.
    void for_each_header(const std::function<void(std::string_view, std::string_view)>& fn) const;

    /// The whole body (chunked bodies arrive decoded). Empty when there is none.
    std::string_view body() const;
    /// The validated, coerced arguments of a route registered with a RouteSpec: an object keyed by
    /// parameter name. A null view for routes without a spec.
    JsonView arguments() const;
    /// The value of the first cookie with this name from the Cookie header(s), or nullopt.
    std::optional<std::string_view> cookie(std::string_view name) const;

    /// The peer address ("127.0.0.1:53122", "[::1]:40000", "unix").
    std::string peer() const;
    /// The request id (from a valid X-Request-ID header, else generated); echoed in the response.
    std::string_view request_id() const;
    /// The trace id of a valid W3C `traceparent` header (32 hex chars), or empty.
    std::string_view trace_id() const;
    /// The whole `traceparent` header when it was valid, or empty.
    std::string_view traceparent() const;
    /// Who sent the request, when authentication is on (ServerOptions::auth): the API key's principal or the JWT's
    /// `sub`. Empty when the request is anonymous, the route is public, or authentication is off.
    std::string_view principal() const;
    /// The principal's scopes, space-separated ("admin tenant_admin:acme read:beta"), when its credential carries
    /// them: a token issued at runtime (ServerOptions::issued_credentials), or a JWT with a `scope` (string) or
    /// `scopes` (array) claim. Empty otherwise; scoped() tells "no scopes" from "not said".
    std::string_view scopes() const;
    /// True when the principal's credential carries scopes (even none): routes then grant what they name only.
    bool scoped() const;

    detail::RequestState* state() const { return state_; }

  private:
    detail::RequestState* state_;
};

}  // namespace slipstream
