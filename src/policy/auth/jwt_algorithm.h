// JwtAlgorithm: the JWS "alg" values the verifier knows (RFC 7518 §3.1, RFC 8037 §3.1).
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace slipstream::policy::auth {

/// Signature algorithms. "none" is deliberately absent: an unsigned token is never accepted.
enum class JwtAlgorithm : std::uint8_t {
    kHS256,
    kHS384,
    kHS512,
    kRS256,
    kRS384,
    kRS512,
    kPS256,
    kPS384,
    kPS512,
    kES256,
    kES384,
    kES512,
    kEdDSA,
};

inline constexpr int kJwtAlgorithmCount = 13;

/// The "alg" text, e.g. "RS256".
std::string_view jwt_algorithm_name(JwtAlgorithm alg);

/// The algorithm whose "alg" text is exactly `name` (case-sensitive, as RFC 7515 requires), or nullopt
/// for "none" and every name not listed above.
std::optional<JwtAlgorithm> parse_jwt_algorithm(std::string_view name);

}  // namespace slipstream::policy::auth
