// JwtVerifier: verifies compact JWS tokens (RFC 7515/7519) against one configured key and the claim rules.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "base/arena.h"
#include "json/value.h"
#include "policy/auth/auth_error.h"
#include "policy/auth/jwt_algorithm.h"

namespace slipstream::policy::auth {

namespace detail {
class JwtKey;
}

/// Claim rules. Every field has a default; only the key is required.
struct JwtOptions {
    /// The `iss` a token must carry; empty: `iss` is not checked.
    std::string issuer;
    /// A value the token's `aud` (a string or an array of strings) must contain; empty: tokens that carry
    /// `aud` are refused (RFC 7519 §4.1.3: a recipient that does not identify itself with a value in it
    /// must reject the token).
    std::string audience;
    /// Clock skew allowed on `exp`, `nbf` and `iat`, in seconds (>= 0).
    std::int64_t leeway_seconds = 60;
    /// Longer tokens are refused before any decoding (kTokenTooLong). At least 1.
    std::size_t max_token_bytes = 8 * 1024;
    /// Refuse tokens without `exp` (kMissingExpiry).
    bool require_exp = true;
    /// Narrows the accepted algorithms; empty: every algorithm the key verifies. Each one listed must be
    /// one the key verifies, or construction throws.
    std::vector<JwtAlgorithm> algorithms;
};

/// What a valid token says. Views point into the Arena given to verify().
struct VerifiedToken {
    std::string_view subject;             // `sub`: the principal, never empty
    const json::Value* claims = nullptr;  // the claims object, every member as sent
    JwtAlgorithm algorithm = JwtAlgorithm::kHS256;
};

/// verify()'s answer: `error` is kNone and `token` filled, or `error` says why the token is refused.
struct [[nodiscard]] JwtResult {
    AuthError error = AuthError::kNone;
    VerifiedToken token;

    bool ok() const { return error == AuthError::kNone; }
};

/// Checks compact JWS tokens signed with one key. The accepted algorithms follow from the key: an HMAC
/// secret accepts only HS* (and only those whose hash is no longer than the secret), an RSA key RS* and
/// PS*, an EC key the ES* of its curve, an Ed25519/Ed448 key EdDSA. So a token cannot choose how it is
/// checked (no "HS256 with the public key as secret"), and "none" is never accepted.
///
/// Construction is control plane and throws AuthConfigError. verify() never throws, never allocates
/// on the heap beyond OpenSSL's own use (decoded bytes and claims go to the caller's Arena), and is safe
/// to call from any number of threads at once: the verifier is immutable after construction.
class JwtVerifier {
  public:
    /// HS256/HS384/HS512 with a shared secret of at least 32 bytes (raw bytes, not base64).
    static JwtVerifier from_secret(std::string_view secret, JwtOptions options = {});
    /// A public key in SubjectPublicKeyInfo PEM ("-----BEGIN PUBLIC KEY-----"): RSA (>= 2048 bits),
    /// EC P-256/P-384/P-521, Ed25519 or Ed448. `source` names the key in error messages.
    static JwtVerifier from_public_key_pem(std::string_view pem, JwtOptions options = {},
                                           std::string_view source = "public key");
    /// As from_public_key_pem(), reading the PEM from `path` (errors name the path).
    static JwtVerifier from_public_key_file(const std::string& path, JwtOptions options = {});

    JwtVerifier(JwtVerifier&&) noexcept;
    JwtVerifier& operator=(JwtVerifier&&) noexcept;
    ~JwtVerifier();

    /// Verifies `token` at time `now_unix` (seconds since the epoch). Checks, in order: length, shape
    /// (three base64url segments), header (a JSON object with a string `alg`), algorithm, no `crit`,
    /// signature, claims (a JSON object; `exp`/`nbf`/`iat` numbers, `iss`/`sub` strings, `aud` a string or
    /// array of strings), `exp` presence, `exp`, `nbf`, `iat`, `iss`, `aud`, `sub`. The first failure is the
    /// answer. On success, `token` views live until `arena` is reset or destroyed.
    /// Cost is OpenSSL's signature check plus a few us of decoding and parsing: HS256 3.5 us, RS256 25 us,
    /// ES256 82 us, EdDSA 225 us, ES384 1.7 ms (OpenSSL 3.0's generic P-384) on the shared 2-core VM.
    JwtResult verify(std::string_view token, std::int64_t now_unix, base::Arena& arena) const;

    /// True when a token signed with `alg` can be accepted.
    bool accepts(JwtAlgorithm alg) const;
    const JwtOptions& options() const { return options_; }

  private:
    JwtVerifier(std::unique_ptr<const detail::JwtKey> key, JwtOptions options);
    AuthError check_claims(const json::Value& claims, std::int64_t now_unix) const;

    std::unique_ptr<const detail::JwtKey> key_;
    JwtOptions options_;
    std::uint32_t accepted_ = 0;  // detail::AlgorithmMask
};

}  // namespace slipstream::policy::auth
