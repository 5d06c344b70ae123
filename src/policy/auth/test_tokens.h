// Test helpers: keys generated with OpenSSL at test time, JWS signing, base64url encoding, temp files.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "policy/auth/jwt_algorithm.h"

struct evp_pkey_st;

namespace slipstream::policy::auth::testkit {

/// Unpadded base64url of `bytes`.
std::string b64url(std::string_view bytes);

/// A private key made at test time.
class TestKey {
  public:
    static TestKey rsa(int bits);
    static TestKey ec(const char* curve);       // "P-256", "P-384", "P-521", "secp256k1"
    static TestKey generate(const char* type);  // "ED25519", "ED448", "X25519"

    /// SubjectPublicKeyInfo PEM.
    std::string public_pem() const;
    /// PKCS#8 PEM of the private key.
    std::string private_pem() const;
    /// The JWS signature bytes of `input` (ES*: r || s, each padded to the curve size).
    std::string sign(JwtAlgorithm alg, std::string_view input) const;

  private:
    explicit TestKey(evp_pkey_st* key);
    std::shared_ptr<evp_pkey_st> key_;
};

/// HMAC of `input` under the hash of `alg` (an HS* algorithm).
std::string hmac(JwtAlgorithm alg, std::string_view secret, std::string_view input);

/// b64url(header) "." b64url(payload).
std::string signing_input(std::string_view header_json, std::string_view payload_json);

/// A compact JWS: the signing input, ".", b64url(signature).
std::string compact(std::string_view signing_input, std::string_view signature);

/// What `build` throws as an AuthConfigError (its what()), or "accepted" when it throws nothing.
std::string config_error(const std::function<void()>& build);

/// A file with `content` under the temp directory, removed when destroyed.
class TempFile {
  public:
    explicit TempFile(std::string_view content);
    ~TempFile();
    TempFile(const TempFile&) = delete;
    TempFile& operator=(const TempFile&) = delete;
    const std::string& path() const { return path_; }

  private:
    std::string path_;
};

}  // namespace slipstream::policy::auth::testkit
