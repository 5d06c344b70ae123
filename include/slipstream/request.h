// Request: the read-only view of one HTTP request that a C++ handler receives.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

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
    /// "HTTP/1.1", "HTTP/1.0".
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
    /// The peer address ("127.0.0.1:53122", "[::1]:40000", "unix").
    std::string peer() const;
    /// The request id (from X-Request-ID or generated).
    std::string_view request_id() const;

    detail::RequestState* state() const { return state_; }

  private:
    detail::RequestState* state_;
};

}  // namespace slipstream
