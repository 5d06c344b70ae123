// Names of the JWS algorithms.
#include "policy/auth/jwt_algorithm.h"

#include <array>

namespace slipstream::policy::auth {
namespace {

constexpr std::array<std::string_view, kJwtAlgorithmCount> kNames = {
    "HS256", "HS384", "HS512", "RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512", "EdDSA",
};

}  // namespace

std::string_view jwt_algorithm_name(JwtAlgorithm alg) {
    return kNames[static_cast<std::size_t>(alg)];
}

std::optional<JwtAlgorithm> parse_jwt_algorithm(std::string_view name) {
    for (std::size_t i = 0; i < kNames.size(); ++i)
        if (kNames[i] == name) return static_cast<JwtAlgorithm>(i);
    return std::nullopt;
}

}  // namespace slipstream::policy::auth
