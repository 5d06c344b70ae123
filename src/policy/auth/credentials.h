// Credentials: finds the API key or bearer token a request presents in its header fields.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

#include "http/h1/header.h"

namespace slipstream::policy::auth {

/// The API-key field name used when none is configured.
inline constexpr std::string_view kDefaultApiKeyHeader = "X-API-Key";

enum class CredentialKind : std::uint8_t {
    kNone,         // neither Authorization nor the API-key field
    kApiKey,       // the API-key field, one visible-ASCII value
    kBearerToken,  // Authorization: Bearer <token>
    kMalformed,    // present but unusable: see extract_credentials()
};

/// What a request presents. `value` views the header value (no copy); empty unless kApiKey or kBearerToken.
struct Credentials {
    CredentialKind kind = CredentialKind::kNone;
    std::string_view value;
};

/// Looks for `Authorization` and the `api_key_header` field (names case-insensitive; an empty
/// `api_key_header` is not looked for). kBearerToken needs exactly: scheme "Bearer" (any case), one space,
/// then one token of visible ASCII (0x21-0x7E). kMalformed when:
///   - Authorization holds anything else (another scheme, no token, two spaces, a second word),
///   - the API-key field is empty or has a byte outside visible ASCII,
///   - either field appears twice, or both appear: one request, one credential, never a silent choice.
/// Pure function over the views; safe from any thread.
Credentials extract_credentials(std::span<const http::h1::Header> headers,
                                std::string_view api_key_header = kDefaultApiKeyHeader);

/// True when `token` has the shape of a compact JWS: exactly two '.'.
bool looks_like_jwt(std::string_view token);

}  // namespace slipstream::policy::auth
