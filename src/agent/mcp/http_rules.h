// The header rules of Streamable HTTP: Accept media ranges, Origin checks, session ids.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace slipstream::mcp::detail {

/// True when the Accept header value lists a media range matching `type` ("application/json"): exact,
/// "application/*" or "*/*", with q > 0. An absent header accepts nothing here (the spec requires one).
bool accepts(std::string_view accept, std::string_view type);

/// True when `origin` may call: an absent Origin (not a browser), the request's own Host, or one of `allowed`
/// ("http://localhost:*" matches any port of that scheme and host; "*" matches everything).
bool origin_allowed(std::optional<std::string_view> origin, std::optional<std::string_view> host,
                    const std::vector<std::string>& allowed);

/// True unless DNS rebinding is suspected: `peer` ("127.0.0.1:5000", "[::1]:5000", "unix", ...) is a loopback
/// address and `host` is a DNS name of several labels ("evil.example.com", "localhost.evil.com": what an attacker's
/// domain resolving to 127.0.0.1 looks like) that is not in `allowed` (exact, without the port, or "*"). IP
/// literals, single-label names ("localhost", a test client's "testserver") and a missing Host from a non-loopback
/// peer pass; a loopback request without a Host does not.
bool host_allowed(std::optional<std::string_view> host, std::string_view peer, const std::vector<std::string>& allowed);

/// The value of a 2026-07-28 mirrored header (`Mcp-Name`, `Mcp-Param-*`): as sent when it is visible ASCII, space
/// or tab; the UTF-8 text of `=?base64?<standard base64>?=`; nullopt for other bytes or bad base64.
std::optional<std::string> decode_mirrored_header(std::string_view value);

/// A new session id: 32 characters of [A-Za-z0-9_-] from 24 random bytes (OpenSSL's RAND_bytes); empty when the
/// generator fails.
std::string new_session_id();

}  // namespace slipstream::mcp::detail
