// Codes and texts of the AuthError reasons.
#include "policy/auth/auth_error.h"

namespace slipstream::policy::auth {

std::string_view auth_error_code(AuthError error) {
    switch (error) {
        case AuthError::kNone:
            return "";
        case AuthError::kMalformedCredentials:
            return "malformed_credentials";
        case AuthError::kUnknownApiKey:
            return "invalid_api_key";
        case AuthError::kMalformedToken:
            return "malformed_token";
        case AuthError::kBadSignature:
            return "bad_signature";
        case AuthError::kExpired:
            return "token_expired";
        case AuthError::kNotYetValid:
            return "token_not_yet_valid";
        case AuthError::kWrongIssuer:
            return "wrong_issuer";
        case AuthError::kWrongAudience:
            return "wrong_audience";
        case AuthError::kUnsupportedAlgorithm:
            return "unsupported_algorithm";
        case AuthError::kTokenTooLong:
            return "token_too_long";
        case AuthError::kMissingExpiry:
            return "missing_exp";
        case AuthError::kMissingSubject:
            return "missing_sub";
    }
    return "";
}

std::string_view auth_error_message(AuthError error) {
    switch (error) {
        case AuthError::kNone:
            return "";
        case AuthError::kMalformedCredentials:
            return "Malformed credentials";
        case AuthError::kUnknownApiKey:
            return "Invalid API key";
        case AuthError::kMalformedToken:
            return "Malformed token";
        case AuthError::kBadSignature:
            return "Invalid token signature";
        case AuthError::kExpired:
            return "Token has expired";
        case AuthError::kNotYetValid:
            return "Token is not yet valid";
        case AuthError::kWrongIssuer:
            return "Token issuer is not accepted";
        case AuthError::kWrongAudience:
            return "Token audience is not accepted";
        case AuthError::kUnsupportedAlgorithm:
            return "Token algorithm is not accepted";
        case AuthError::kTokenTooLong:
            return "Token is too long";
        case AuthError::kMissingExpiry:
            return "Token has no expiry";
        case AuthError::kMissingSubject:
            return "Token has no subject";
    }
    return "";
}

}  // namespace slipstream::policy::auth
