// AuthError: the closed set of reasons a request's credentials are refused, with their 401 texts.
#pragma once

#include <cstdint>
#include <string_view>

namespace slipstream::policy::auth {

/// Why credentials were refused. kNone means "not refused". Each value has a stable machine code
/// (auth_error_code) and a short human text (auth_error_message); both are safe to send in a 401 body:
/// neither says anything about keys, secrets or the server's configuration beyond what the client sent.
enum class AuthError : std::uint8_t {
    kNone = 0,
    kMalformedCredentials,  // Authorization not "Bearer <token>", a credential field repeated, an empty or
                            // non-ASCII API key, or both an API key and a bearer token in one request
    kUnknownApiKey,         // no such API key
    kMalformedToken,        // not a compact JWS, bad base64url, header or claims not a JSON object,
                            // a registered claim of the wrong type, a `crit` header
    kBadSignature,          // the signature does not verify with the configured key
    kExpired,               // `exp` (plus leeway) has passed
    kNotYetValid,           // `nbf` or `iat` (minus leeway) is still in the future
    kWrongIssuer,           // `iss` missing or not the configured issuer
    kWrongAudience,         // `aud` does not contain the configured audience, or is present when none is
    kUnsupportedAlgorithm,  // `alg` is "none", unknown, or not one this verifier's key accepts
    kTokenTooLong,          // the token is longer than JwtOptions::max_token_bytes
    kMissingExpiry,         // no `exp` while JwtOptions::require_exp is set
    kMissingSubject,        // no `sub`, or an empty one
};

/// A stable snake_case code for the reason, e.g. "token_expired"; "" for kNone.
std::string_view auth_error_code(AuthError error);

/// A short sentence for the reason, e.g. "Token has expired"; "" for kNone.
std::string_view auth_error_message(AuthError error);

}  // namespace slipstream::policy::auth
