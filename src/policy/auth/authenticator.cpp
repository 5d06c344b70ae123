// Authenticator: credentials -> key store or JWT verifier -> AuthResult.
#include "policy/auth/authenticator.h"

#include "policy/auth/auth_config_error.h"

namespace slipstream::policy::auth {
namespace {

AuthResult refused(AuthError error) {
    AuthResult r;
    r.outcome = AuthOutcome::kRefused;
    r.error = error;
    return r;
}

}  // namespace

Authenticator::Authenticator(AuthenticatorConfig config) : config_(std::move(config)) {
    if (!config_.api_keys && !config_.jwt)
        throw AuthConfigError("AuthenticatorConfig", "neither api_keys nor jwt is set");
    if (config_.api_keys) {
        if (!http::h1::is_valid_field_name(config_.api_key_header))
            throw AuthConfigError("AuthenticatorConfig", "api_key_header is not a valid field name");
        if (http::h1::iequals(config_.api_key_header, "Authorization"))
            throw AuthConfigError("AuthenticatorConfig", "api_key_header cannot be Authorization");
    }
}

AuthResult Authenticator::authenticate(std::span<const http::h1::Header> headers, std::int64_t now_unix,
                                       base::Arena& arena) const {
    const Credentials credentials =
        extract_credentials(headers, config_.api_keys ? std::string_view(config_.api_key_header) : std::string_view());
    switch (credentials.kind) {
        case CredentialKind::kNone:
            return {};
        case CredentialKind::kMalformed:
            return refused(AuthError::kMalformedCredentials);
        case CredentialKind::kApiKey:
            return by_api_key(credentials.value);
        case CredentialKind::kBearerToken:
            if (config_.jwt && (looks_like_jwt(credentials.value) || !config_.api_keys))
                return by_jwt(credentials.value, now_unix, arena);
            return by_api_key(credentials.value);
    }
    return refused(AuthError::kMalformedCredentials);
}

AuthResult Authenticator::by_api_key(std::string_view key) const {
    const ApiKeyEntry* entry = config_.api_keys->find(key);
    if (entry == nullptr) return refused(AuthError::kUnknownApiKey);
    AuthResult r;
    r.outcome = AuthOutcome::kAuthenticated;
    r.method = AuthMethod::kApiKey;
    r.principal = entry->principal;
    r.rate = entry->rate;
    return r;
}

AuthResult Authenticator::by_jwt(std::string_view token, std::int64_t now_unix, base::Arena& arena) const {
    const JwtResult verified = config_.jwt->verify(token, now_unix, arena);
    if (!verified.ok()) return refused(verified.error);
    AuthResult r;
    r.outcome = AuthOutcome::kAuthenticated;
    r.method = AuthMethod::kJwt;
    r.principal = verified.token.subject;
    r.claims = verified.token.claims;
    return r;
}

}  // namespace slipstream::policy::auth
