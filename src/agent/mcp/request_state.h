// Request states of multi round-trip requests (2026-07-28 basic/patterns/mrtr): what an input_required result hands
// the client to echo on its retry, sealed with HMAC-SHA256 so a client cannot alter it, bound to the principal, the
// request (method, name, arguments) and an expiry, as the specification asks.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace slipstream::mcp::detail {

/// What a request state carries.
struct RequestState {
    std::string principal;
    std::string digest;                          // request_digest() of the request it belongs to
    std::int64_t expires_ms = 0;                 // wall clock, ms since the epoch
    std::map<std::string, std::string> answers;  // input key -> the client's result object (JSON text)
};

/// Hex SHA-256 of the method, the name (tool, prompt or URI) and the arguments' JSON text.
std::string request_digest(std::string_view method, std::string_view name, std::string_view arguments_json);

/// `<base64 payload>.<base64 HMAC-SHA256 of the payload under key>`.
std::string seal_request_state(const RequestState& state, std::string_view key);
/// The state when the seal verifies and the payload is well-formed; nullopt otherwise (the caller checks principal,
/// digest and expiry).
std::optional<RequestState> open_request_state(std::string_view sealed, std::string_view key);

/// 32 random bytes (a key for a server that was given none); empty when the generator fails.
std::string random_state_key();

}  // namespace slipstream::mcp::detail
