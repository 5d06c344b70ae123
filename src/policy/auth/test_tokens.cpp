// Test helpers over OpenSSL: key generation, PEM export, JWS signing (ECDSA DER -> r || s), temp files.
#include "policy/auth/test_tokens.h"

#include <openssl/bio.h>
#include <openssl/ec.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/pem.h>
#include <openssl/rsa.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <stdexcept>

#include "policy/auth/auth_config_error.h"

namespace slipstream::policy::auth::testkit {
namespace {

const EVP_MD* md_for(JwtAlgorithm alg) {
    switch (alg) {
        case JwtAlgorithm::kHS256:
        case JwtAlgorithm::kRS256:
        case JwtAlgorithm::kPS256:
        case JwtAlgorithm::kES256:
            return EVP_sha256();
        case JwtAlgorithm::kHS384:
        case JwtAlgorithm::kRS384:
        case JwtAlgorithm::kPS384:
        case JwtAlgorithm::kES384:
            return EVP_sha384();
        case JwtAlgorithm::kHS512:
        case JwtAlgorithm::kRS512:
        case JwtAlgorithm::kPS512:
        case JwtAlgorithm::kES512:
            return EVP_sha512();
        case JwtAlgorithm::kEdDSA:
            return nullptr;
    }
    return nullptr;
}

std::string bio_text(BIO* bio) {
    char* data = nullptr;
    const long n = BIO_get_mem_data(bio, &data);
    std::string text(data, static_cast<std::size_t>(n));
    BIO_free(bio);
    return text;
}

// DER ECDSA-Sig-Value -> r || s, each left-padded to `half` bytes.
std::string der_to_raw(const std::string& der, int half) {
    const auto* p = reinterpret_cast<const unsigned char*>(der.data());
    ECDSA_SIG* sig = d2i_ECDSA_SIG(nullptr, &p, static_cast<long>(der.size()));
    if (sig == nullptr) throw std::runtime_error("d2i_ECDSA_SIG failed");
    std::string raw(static_cast<std::size_t>(2 * half), '\0');
    auto* out = reinterpret_cast<unsigned char*>(raw.data());
    BN_bn2binpad(ECDSA_SIG_get0_r(sig), out, half);
    BN_bn2binpad(ECDSA_SIG_get0_s(sig), out + half, half);
    ECDSA_SIG_free(sig);
    return raw;
}

}  // namespace

std::string b64url(std::string_view bytes) {
    static constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    std::string out;
    std::size_t i = 0;
    const auto at = [&](std::size_t k) { return static_cast<unsigned>(static_cast<unsigned char>(bytes[k])); };
    for (; i + 3 <= bytes.size(); i += 3) {
        const unsigned n = at(i) << 16 | at(i + 1) << 8 | at(i + 2);
        for (int shift : {18, 12, 6, 0})
            out += kAlphabet[(n >> shift) & 63];
    }
    if (bytes.size() - i == 1) {
        const unsigned n = at(i) << 16;
        out += kAlphabet[(n >> 18) & 63];
        out += kAlphabet[(n >> 12) & 63];
    } else if (bytes.size() - i == 2) {
        const unsigned n = at(i) << 16 | at(i + 1) << 8;
        out += kAlphabet[(n >> 18) & 63];
        out += kAlphabet[(n >> 12) & 63];
        out += kAlphabet[(n >> 6) & 63];
    }
    return out;
}

TestKey::TestKey(evp_pkey_st* key) : key_(key, EVP_PKEY_free) {
    if (key == nullptr) throw std::runtime_error("key generation failed");
}

TestKey TestKey::rsa(int bits) {
    return TestKey(EVP_RSA_gen(static_cast<unsigned>(bits)));
}

TestKey TestKey::ec(const char* curve) {
    return TestKey(EVP_EC_gen(curve));
}

TestKey TestKey::generate(const char* type) {
    return TestKey(EVP_PKEY_Q_keygen(nullptr, nullptr, type));
}

std::string TestKey::public_pem() const {
    BIO* bio = BIO_new(BIO_s_mem());
    PEM_write_bio_PUBKEY(bio, key_.get());
    return bio_text(bio);
}

std::string TestKey::private_pem() const {
    BIO* bio = BIO_new(BIO_s_mem());
    PEM_write_bio_PrivateKey(bio, key_.get(), nullptr, nullptr, 0, nullptr, nullptr);
    return bio_text(bio);
}

std::string TestKey::sign(JwtAlgorithm alg, std::string_view input) const {
    EVP_MD_CTX* ctx = EVP_MD_CTX_new();
    EVP_PKEY_CTX* pctx = nullptr;
    if (EVP_DigestSignInit(ctx, &pctx, md_for(alg), nullptr, key_.get()) != 1)
        throw std::runtime_error("EVP_DigestSignInit failed");
    if (alg == JwtAlgorithm::kPS256 || alg == JwtAlgorithm::kPS384 || alg == JwtAlgorithm::kPS512) {
        EVP_PKEY_CTX_set_rsa_padding(pctx, RSA_PKCS1_PSS_PADDING);
        EVP_PKEY_CTX_set_rsa_pss_saltlen(pctx, RSA_PSS_SALTLEN_DIGEST);
    }
    const auto* in = reinterpret_cast<const unsigned char*>(input.data());
    std::size_t size = 0;
    EVP_DigestSign(ctx, nullptr, &size, in, input.size());
    std::string sig(size, '\0');
    if (EVP_DigestSign(ctx, reinterpret_cast<unsigned char*>(sig.data()), &size, in, input.size()) != 1)
        throw std::runtime_error("EVP_DigestSign failed");
    EVP_MD_CTX_free(ctx);
    sig.resize(size);
    switch (alg) {
        case JwtAlgorithm::kES256:
            return der_to_raw(sig, 32);
        case JwtAlgorithm::kES384:
            return der_to_raw(sig, 48);
        case JwtAlgorithm::kES512:
            return der_to_raw(sig, 66);
        default:
            return sig;
    }
}

std::string hmac(JwtAlgorithm alg, std::string_view secret, std::string_view input) {
    unsigned char mac[EVP_MAX_MD_SIZE];
    unsigned int size = 0;
    HMAC(md_for(alg), secret.data(), static_cast<int>(secret.size()),
         reinterpret_cast<const unsigned char*>(input.data()), input.size(), mac, &size);
    return std::string(reinterpret_cast<const char*>(mac), size);
}

std::string signing_input(std::string_view header_json, std::string_view payload_json) {
    return b64url(header_json) + "." + b64url(payload_json);
}

std::string compact(std::string_view signing_input, std::string_view signature) {
    return std::string(signing_input) + "." + b64url(signature);
}

std::string config_error(const std::function<void()>& build) {
    try {
        build();
    } catch (const AuthConfigError& e) {
        return e.what();
    }
    return "accepted";
}

TempFile::TempFile(std::string_view content) {
    std::string pattern = (std::filesystem::temp_directory_path() / "ss_auth_test_XXXXXX").string();
    const int fd = mkstemp(pattern.data());
    if (fd < 0) throw std::runtime_error("mkstemp failed");
    close(fd);
    path_ = pattern;
    std::ofstream(path_, std::ios::binary) << content;
}

TempFile::~TempFile() {
    std::error_code ignored;
    std::filesystem::remove(path_, ignored);
}

}  // namespace slipstream::policy::auth::testkit
