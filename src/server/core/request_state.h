// RequestState: everything the public Request exposes, as views into the connection's bytes or owned storage.
#pragma once

#include <cstddef>
#include <memory>
#include <span>
#include <string_view>

#include "base/arena.h"
#include "http/h1/header.h"
#include "http/h1/request_head.h"
#include "json/value.h"
#include "net/socket_address.h"
#include "router/route_match.h"

namespace slipstream::detail {

/// Built by the connection for each request. For a handler that answers at once, the views point into
/// the connection's input buffer. detach() copies everything into `storage_` so that an asynchronous
/// handler may keep the request until it answers.
struct RequestState {
    std::string_view method;
    std::string_view target;
    std::string_view path;  // percent-decoded
    std::string_view query;
    std::string_view body;
    std::string_view request_id;
    std::string_view trace_id;
    std::string_view traceparent;
    /// The authenticated principal (server/access_policy): a view into the key store or into `arena`; empty when
    /// the request is anonymous or authentication is off.
    std::string_view principal;
    /// The principal's scopes, space-separated (an issued token's, or a JWT's `scope`/`scopes` claim); `scoped` is
    /// false when its credential says nothing of scopes. Views like `principal`, or into `credential`.
    std::string_view scopes;
    bool scoped = false;
    /// Keeps an issued token's principal and scopes alive (detach() leaves it as it is).
    std::shared_ptr<const void> credential;
    std::span<const http::h1::Header> headers;
    http::h1::Version version = http::h1::Version::kHttp11;
    bool http2 = false;  // arrived on an HTTP/2 stream (`version` is then unused)
    server::RouteMatch match;
    /// The client: the connection's address until detach() copies it. Null when unknown.
    const net::SocketAddress* peer = nullptr;
    /// Validated arguments of a route with a RouteSpec (an object), allocated in `arena` with their own
    /// copies of every string, so detach() leaves them alone. Null for routes without a spec.
    const json::Value* arguments = nullptr;
    std::unique_ptr<base::Arena> arena;

    RequestState() = default;
    RequestState(RequestState&&) = default;
    RequestState& operator=(RequestState&&) = default;

    /// Copies every view (head, body, headers, parameter values) and the peer into owned memory: one allocation.
    void detach();

  private:
    // Set by detach(): the copied header array, the peer, then the bytes every view points into. Null for a request
    // answered at once, which then constructs and destroys no owned storage.
    std::unique_ptr<std::byte[]> owned_;
};

}  // namespace slipstream::detail
