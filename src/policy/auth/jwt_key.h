// JwtKey: the one key a JwtVerifier checks signatures with (HMAC secret or public key), over OpenSSL.
#pragma once

#include <openssl/types.h>

#include <array>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>

#include "policy/auth/jwt_algorithm.h"

namespace slipstream::policy::auth::detail {

/// A set of algorithms, one bit per JwtAlgorithm value.
using AlgorithmMask = std::uint32_t;
constexpr AlgorithmMask algorithm_bit(JwtAlgorithm alg) {
    return AlgorithmMask{1} << static_cast<unsigned>(alg);
}

/// Holds the key and the algorithms it can verify, which follow from the key alone: an HMAC secret
/// verifies HS* (those whose hash is no longer than the secret), an RSA key RS* and PS*, an EC key the
/// one ES* of its curve, an Ed25519/Ed448 key EdDSA. Immutable after construction; verify() is safe on
/// many threads at once (one EVP_MD_CTX per call, the EVP_PKEY only read).
class JwtKey {
  public:
    /// Minimum HMAC secret length (RFC 7518 §3.2: at least the hash size, so 32 bytes for HS256).
    static constexpr std::size_t kMinSecretBytes = 32;
    /// Minimum RSA modulus (RFC 7518 §3.3).
    static constexpr int kMinRsaBits = 2048;

    /// Throws AuthConfigError("JwtVerifier", ...) for a secret shorter than kMinSecretBytes.
    static std::unique_ptr<JwtKey> from_secret(std::string_view secret);
    /// Reads a SubjectPublicKeyInfo PEM ("-----BEGIN PUBLIC KEY-----"). Throws AuthConfigError(source, ...)
    /// for a private key, a certificate, unreadable PEM, RSA under 2048 bits, an unsupported curve or type.
    static std::unique_ptr<JwtKey> from_public_pem(std::string_view pem, const std::string& source);

    ~JwtKey();
    JwtKey(const JwtKey&) = delete;
    JwtKey& operator=(const JwtKey&) = delete;

    AlgorithmMask algorithms() const { return algorithms_; }
    /// What the key is, for configuration messages: "a 64-byte HMAC secret", "an EC P-256 public key".
    const std::string& description() const { return description_; }

    /// True when `signature` (decoded bytes) signs `signing_input` under `alg`. `alg` must be one of
    /// algorithms(). False for a wrong length or any OpenSSL failure; leaves the thread's OpenSSL error
    /// queue empty (TLS code on the same thread reads it).
    bool verify(JwtAlgorithm alg, std::string_view signing_input, std::span<const unsigned char> signature) const;

  private:
    JwtKey() = default;
    bool verify_hmac(JwtAlgorithm alg, std::string_view input, std::span<const unsigned char> signature) const;
    bool verify_pkey(JwtAlgorithm alg, std::string_view input, std::span<const unsigned char> signature) const;
    void fetch_digests();
    const EVP_MD* md_for(JwtAlgorithm alg) const;

    AlgorithmMask algorithms_ = 0;
    std::string description_;
    std::string secret_;                   // HMAC only; wiped on destruction
    EVP_PKEY* pkey_ = nullptr;             // public keys only; owned
    std::array<EVP_MD*, 3> sha2_{};        // SHA-256/384/512, fetched once; owned
    std::size_t ec_coordinate_bytes_ = 0;  // ES*: bytes of r and of s in the JWS signature
};

}  // namespace slipstream::policy::auth::detail
