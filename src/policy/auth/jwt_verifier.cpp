// JwtVerifier: token shape, header, signature, then the registered claims.
#include "policy/auth/jwt_verifier.h"

#include <span>

#include "json/parse.h"
#include "policy/auth/auth_config_error.h"
#include "policy/auth/base64url.h"
#include "policy/auth/config_file.h"
#include "policy/auth/jwt_key.h"

namespace slipstream::policy::auth {
namespace {

using detail::algorithm_bit;

// Decoded bytes of one base64url segment, in the arena; false when the segment is not canonical base64url.
bool decode_segment(std::string_view b64, base::Arena& arena, std::span<const unsigned char>& out) {
    const std::size_t n = detail::base64url_decoded_size(b64.size());
    auto* buf = static_cast<unsigned char*>(arena.allocate(n == 0 ? 1 : n, 1));
    if (!detail::decode_base64url(b64, buf)) return false;
    out = std::span<const unsigned char>(buf, n);
    return true;
}

// A JSON object from a base64url segment, or nullptr. Duplicate member names are refused: parsers that
// disagree on which one wins are a known way to smuggle claims (RFC 7515 §5.2).
const json::Value* decode_object(std::string_view b64, base::Arena& arena) {
    std::span<const unsigned char> bytes;
    if (!decode_segment(b64, arena, bytes)) return nullptr;
    json::ParseOptions options;
    options.duplicate_keys = json::DuplicateKeys::kReject;
    base::Result<const json::Value*> parsed =
        json::parse(std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()), arena, options);
    if (!parsed.is_ok() || !parsed.value()->is_object()) return nullptr;
    return parsed.value();
}

bool is_string_or_string_array(const json::Value& v) {
    if (v.is_string()) return true;
    if (!v.is_array()) return false;
    for (const json::Value& item : v.items())
        if (!item.is_string()) return false;
    return true;
}

bool audience_contains(const json::Value& aud, std::string_view audience) {
    if (aud.is_string()) return aud.as_string() == audience;
    for (const json::Value& item : aud.items())
        if (item.as_string() == audience) return true;
    return false;
}

JwtResult refused(AuthError error) {
    JwtResult r;
    r.error = error;
    return r;
}

}  // namespace

JwtVerifier::JwtVerifier(std::unique_ptr<const detail::JwtKey> key, JwtOptions options)
    : key_(std::move(key)), options_(std::move(options)) {
    if (options_.leeway_seconds < 0) throw AuthConfigError("JwtOptions", "leeway_seconds is negative");
    if (options_.max_token_bytes == 0) throw AuthConfigError("JwtOptions", "max_token_bytes is 0");
    accepted_ = key_->algorithms();
    if (!options_.algorithms.empty()) {
        detail::AlgorithmMask wanted = 0;
        for (JwtAlgorithm alg : options_.algorithms) {
            if ((algorithm_bit(alg) & accepted_) == 0)
                throw AuthConfigError("JwtOptions", std::string(jwt_algorithm_name(alg)) + " cannot be verified with " +
                                                        key_->description());
            wanted |= algorithm_bit(alg);
        }
        accepted_ = wanted;
    }
}

JwtVerifier JwtVerifier::from_secret(std::string_view secret, JwtOptions options) {
    return JwtVerifier(detail::JwtKey::from_secret(secret), std::move(options));
}

JwtVerifier JwtVerifier::from_public_key_pem(std::string_view pem, JwtOptions options, std::string_view source) {
    return JwtVerifier(detail::JwtKey::from_public_pem(pem, std::string(source)), std::move(options));
}

JwtVerifier JwtVerifier::from_public_key_file(const std::string& path, JwtOptions options) {
    return from_public_key_pem(detail::read_config_file(path), std::move(options), path);
}

JwtVerifier::JwtVerifier(JwtVerifier&&) noexcept = default;
JwtVerifier& JwtVerifier::operator=(JwtVerifier&&) noexcept = default;
JwtVerifier::~JwtVerifier() = default;

bool JwtVerifier::accepts(JwtAlgorithm alg) const {
    return (algorithm_bit(alg) & accepted_) != 0;
}

JwtResult JwtVerifier::verify(std::string_view token, std::int64_t now_unix, base::Arena& arena) const {
    // Shape: header.payload.signature, nothing decoded yet.
    if (token.size() > options_.max_token_bytes) return refused(AuthError::kTokenTooLong);
    const std::size_t dot1 = token.find('.');
    const std::size_t dot2 = dot1 == std::string_view::npos ? dot1 : token.find('.', dot1 + 1);
    if (dot2 == std::string_view::npos || token.find('.', dot2 + 1) != std::string_view::npos || dot1 == 0 ||
        dot2 == dot1 + 1)
        return refused(AuthError::kMalformedToken);

    // Header: the algorithm must be one the key accepts; the token does not get to choose the key type.
    const json::Value* header = decode_object(token.substr(0, dot1), arena);
    const json::Value* alg_name = header != nullptr ? header->find("alg") : nullptr;
    if (alg_name == nullptr || !alg_name->is_string()) return refused(AuthError::kMalformedToken);
    const std::optional<JwtAlgorithm> alg = parse_jwt_algorithm(alg_name->as_string());
    if (!alg || !accepts(*alg)) return refused(AuthError::kUnsupportedAlgorithm);
    // No header extension is understood, so any critical one makes the token invalid (RFC 7515 §4.1.11).
    if (header->find("crit") != nullptr) return refused(AuthError::kMalformedToken);

    // Signature over the original bytes of header "." payload, before the payload is parsed.
    std::span<const unsigned char> signature;
    if (!decode_segment(token.substr(dot2 + 1), arena, signature)) return refused(AuthError::kMalformedToken);
    if (!key_->verify(*alg, token.substr(0, dot2), signature)) return refused(AuthError::kBadSignature);

    // Claims.
    const json::Value* claims = decode_object(token.substr(dot1 + 1, dot2 - dot1 - 1), arena);
    if (claims == nullptr) return refused(AuthError::kMalformedToken);
    if (AuthError error = check_claims(*claims, now_unix); error != AuthError::kNone) return refused(error);

    JwtResult result;
    result.token.subject = claims->find("sub")->as_string();
    result.token.claims = claims;
    result.token.algorithm = *alg;
    return result;
}

AuthError JwtVerifier::check_claims(const json::Value& claims, std::int64_t now_unix) const {
    const json::Value* exp = claims.find("exp");
    const json::Value* nbf = claims.find("nbf");
    const json::Value* iat = claims.find("iat");
    const json::Value* iss = claims.find("iss");
    const json::Value* aud = claims.find("aud");
    const json::Value* sub = claims.find("sub");

    // Types of the registered claims (RFC 7519 §4.1): NumericDate, StringOrURI, or an array of them for aud.
    for (const json::Value* date : {exp, nbf, iat})
        if (date != nullptr && !date->is_number()) return AuthError::kMalformedToken;
    for (const json::Value* text : {iss, sub})
        if (text != nullptr && !text->is_string()) return AuthError::kMalformedToken;
    if (aud != nullptr && !is_string_or_string_array(*aud)) return AuthError::kMalformedToken;

    // Time, with leeway both ways: valid while now < exp + leeway, and once now >= nbf - leeway.
    // Doubles: NumericDate may have a fraction; seconds since the epoch are exact in a double.
    const double now = static_cast<double>(now_unix);
    const double leeway = static_cast<double>(options_.leeway_seconds);
    if (exp == nullptr && options_.require_exp) return AuthError::kMissingExpiry;
    if (exp != nullptr && now >= exp->as_double() + leeway) return AuthError::kExpired;
    if (nbf != nullptr && now < nbf->as_double() - leeway) return AuthError::kNotYetValid;
    if (iat != nullptr && iat->as_double() > now + leeway) return AuthError::kNotYetValid;

    if (!options_.issuer.empty() && (iss == nullptr || iss->as_string() != options_.issuer))
        return AuthError::kWrongIssuer;
    if (options_.audience.empty() ? aud != nullptr : aud == nullptr || !audience_contains(*aud, options_.audience))
        return AuthError::kWrongAudience;
    if (sub == nullptr || sub->as_string().empty()) return AuthError::kMissingSubject;
    return AuthError::kNone;
}

}  // namespace slipstream::policy::auth
