// Authenticator: one call per request that turns its credentials into a principal, or a refusal.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "base/arena.h"
#include "http/h1/header.h"
#include "json/value.h"
#include "policy/auth/api_key_store.h"
#include "policy/auth/auth_error.h"
#include "policy/auth/credentials.h"
#include "policy/auth/jwt_verifier.h"

namespace slipstream::policy::auth {

/// What the server accepts. At least one of `api_keys` and `jwt` must be set.
struct AuthenticatorConfig {
    std::optional<ApiKeyStore> api_keys;  // API keys, in `api_key_header` or as bearer tokens
    std::optional<JwtVerifier> jwt;       // JWTs, as bearer tokens
    /// Field carrying an API key; looked at only when `api_keys` is set. Not "Authorization".
    std::string api_key_header = std::string(kDefaultApiKeyHeader);
};

enum class AuthOutcome : std::uint8_t {
    kAnonymous,      // no credentials: the route decides whether that is allowed
    kAuthenticated,  // `principal` is set
    kRefused,        // credentials were presented and are not valid: answer 401 with `error`
};

enum class AuthMethod : std::uint8_t { kNone, kApiKey, kJwt };

/// One request's answer. Views live as long as the Authenticator (API keys) or the Arena (JWTs).
struct AuthResult {
    AuthOutcome outcome = AuthOutcome::kAnonymous;
    AuthError error = AuthError::kNone;  // kRefused: why (auth_error_code / auth_error_message for the body)
    AuthMethod method = AuthMethod::kNone;
    std::string_view principal;           // the key file's principal or the token's `sub`
    std::string_view rate;                // the key's rate token; empty for JWTs and keys without one
    const json::Value* claims = nullptr;  // JWT claims object; nullptr for API keys
};

/// Owns the key store and the verifier. Routing of credentials:
///   - API-key field          -> key store
///   - Bearer with two dots   -> JWT verifier if configured, else key store
///   - other Bearer           -> key store if configured, else JWT verifier (which answers kMalformedToken)
///   - malformed credentials  -> kRefused / kMalformedCredentials
///   - nothing                -> kAnonymous
/// Immutable after construction; authenticate() may be called from any number of threads at once.
class Authenticator {
  public:
    /// Throws AuthConfigError("AuthenticatorConfig", ...) when neither `api_keys` nor `jwt` is set, or when
    /// `api_key_header` is not a valid field name or is "Authorization".
    explicit Authenticator(AuthenticatorConfig config);

    /// Authenticates one request from its header fields, at `now_unix` (seconds since the epoch). JWT
    /// claims are parsed into `arena`. Never throws.
    AuthResult authenticate(std::span<const http::h1::Header> headers, std::int64_t now_unix, base::Arena& arena) const;

    const ApiKeyStore* api_keys() const { return config_.api_keys ? &*config_.api_keys : nullptr; }
    const JwtVerifier* jwt() const { return config_.jwt ? &*config_.jwt : nullptr; }

  private:
    AuthResult by_api_key(std::string_view key) const;
    AuthResult by_jwt(std::string_view token, std::int64_t now_unix, base::Arena& arena) const;

    AuthenticatorConfig config_;
};

}  // namespace slipstream::policy::auth
