// JwtKey: key loading and classification, HMAC and EVP_DigestVerify, JWS ECDSA signatures to DER.
#include "policy/auth/jwt_key.h"

#include <openssl/bio.h>
#include <openssl/crypto.h>
#include <openssl/ec.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/pem.h>
#include <openssl/rsa.h>

#include "policy/auth/auth_config_error.h"

namespace slipstream::policy::auth::detail {
namespace {

struct BioFree {
    void operator()(BIO* b) const { BIO_free(b); }
};
struct MdCtxFree {
    void operator()(EVP_MD_CTX* c) const { EVP_MD_CTX_free(c); }
};
struct EcdsaSigFree {
    void operator()(ECDSA_SIG* s) const { ECDSA_SIG_free(s); }
};
struct BnFree {
    void operator()(BIGNUM* b) const { BN_free(b); }
};

void clear_openssl_errors() {
    if (ERR_peek_error() != 0) ERR_clear_error();
}

constexpr AlgorithmMask kHmacAlgorithms =
    algorithm_bit(JwtAlgorithm::kHS256) | algorithm_bit(JwtAlgorithm::kHS384) | algorithm_bit(JwtAlgorithm::kHS512);
constexpr AlgorithmMask kRsaAlgorithms = algorithm_bit(JwtAlgorithm::kRS256) | algorithm_bit(JwtAlgorithm::kRS384) |
                                         algorithm_bit(JwtAlgorithm::kRS512) | algorithm_bit(JwtAlgorithm::kPS256) |
                                         algorithm_bit(JwtAlgorithm::kPS384) | algorithm_bit(JwtAlgorithm::kPS512);

bool is_hmac(JwtAlgorithm alg) {
    return (algorithm_bit(alg) & kHmacAlgorithms) != 0;
}
bool is_pss(JwtAlgorithm alg) {
    return alg == JwtAlgorithm::kPS256 || alg == JwtAlgorithm::kPS384 || alg == JwtAlgorithm::kPS512;
}
bool is_ecdsa(JwtAlgorithm alg) {
    return alg == JwtAlgorithm::kES256 || alg == JwtAlgorithm::kES384 || alg == JwtAlgorithm::kES512;
}

// Index into JwtKey::sha2_ (SHA-256, -384, -512), or -1 for EdDSA (which hashes internally).
int sha2_index(JwtAlgorithm alg) {
    switch (alg) {
        case JwtAlgorithm::kHS256:
        case JwtAlgorithm::kRS256:
        case JwtAlgorithm::kPS256:
        case JwtAlgorithm::kES256:
            return 0;
        case JwtAlgorithm::kHS384:
        case JwtAlgorithm::kRS384:
        case JwtAlgorithm::kPS384:
        case JwtAlgorithm::kES384:
            return 1;
        case JwtAlgorithm::kHS512:
        case JwtAlgorithm::kRS512:
        case JwtAlgorithm::kPS512:
        case JwtAlgorithm::kES512:
            return 2;
        case JwtAlgorithm::kEdDSA:
            return -1;
    }
    return -1;
}

// JWS carries an ECDSA signature as r || s, each left-padded to the curve size (RFC 7518 §3.4); OpenSSL
// verifies the DER SEQUENCE { INTEGER r, INTEGER s }. Returns the DER length, 0 when it cannot be built.
std::size_t ecdsa_raw_to_der(std::span<const unsigned char> raw, std::size_t half, unsigned char* der,
                             std::size_t der_capacity) {
    std::unique_ptr<BIGNUM, BnFree> r(BN_bin2bn(raw.data(), static_cast<int>(half), nullptr));
    std::unique_ptr<BIGNUM, BnFree> s(BN_bin2bn(raw.data() + half, static_cast<int>(half), nullptr));
    std::unique_ptr<ECDSA_SIG, EcdsaSigFree> sig(ECDSA_SIG_new());
    if (!r || !s || !sig || ECDSA_SIG_set0(sig.get(), r.get(), s.get()) != 1) return 0;
    r.release();  // owned by sig now
    s.release();
    const int size = i2d_ECDSA_SIG(sig.get(), nullptr);
    if (size <= 0 || static_cast<std::size_t>(size) > der_capacity) return 0;
    unsigned char* p = der;
    return i2d_ECDSA_SIG(sig.get(), &p) == size ? static_cast<std::size_t>(size) : 0;
}

}  // namespace

std::unique_ptr<JwtKey> JwtKey::from_secret(std::string_view secret) {
    if (secret.size() < kMinSecretBytes)
        throw AuthConfigError("JwtVerifier", "HMAC secret has " + std::to_string(secret.size()) +
                                                 " bytes; at least 32 are required (RFC 7518 §3.2)");
    std::unique_ptr<JwtKey> key(new JwtKey());
    key->secret_.assign(secret);
    key->algorithms_ = algorithm_bit(JwtAlgorithm::kHS256);
    if (secret.size() >= 48) key->algorithms_ |= algorithm_bit(JwtAlgorithm::kHS384);
    if (secret.size() >= 64) key->algorithms_ |= algorithm_bit(JwtAlgorithm::kHS512);
    key->description_ = "a " + std::to_string(secret.size()) + "-byte HMAC secret";
    key->fetch_digests();
    return key;
}

std::unique_ptr<JwtKey> JwtKey::from_public_pem(std::string_view pem, const std::string& source) {
    // Name the common mistakes precisely; the verifier must never hold a private key.
    if (pem.find("PRIVATE KEY-----") != std::string_view::npos)
        throw AuthConfigError(source,
                              "holds a private key; give the verifier only the public key "
                              "(openssl pkey -pubout)");
    if (pem.find("-----BEGIN CERTIFICATE-----") != std::string_view::npos)
        throw AuthConfigError(source, "holds a certificate; give its public key (openssl x509 -pubkey -noout)");
    std::unique_ptr<BIO, BioFree> bio(BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())));
    std::unique_ptr<JwtKey> key(new JwtKey());
    if (bio) key->pkey_ = PEM_read_bio_PUBKEY(bio.get(), nullptr, nullptr, nullptr);
    clear_openssl_errors();
    if (key->pkey_ == nullptr) throw AuthConfigError(source, "is not a PEM public key (-----BEGIN PUBLIC KEY-----)");

    EVP_PKEY* pkey = key->pkey_;
    if (EVP_PKEY_is_a(pkey, "RSA")) {
        const int bits = EVP_PKEY_get_bits(pkey);
        if (bits < kMinRsaBits)
            throw AuthConfigError(source, "RSA key has " + std::to_string(bits) + " bits; at least 2048 are required");
        key->algorithms_ = kRsaAlgorithms;
        key->description_ = "an RSA " + std::to_string(bits) + "-bit public key";
    } else if (EVP_PKEY_is_a(pkey, "EC")) {
        char group[64] = {};
        std::size_t len = 0;
        if (EVP_PKEY_get_group_name(pkey, group, sizeof group, &len) != 1) group[0] = '\0';
        clear_openssl_errors();
        const std::string_view curve(group);
        if (curve == "prime256v1" || curve == "P-256") {
            key->algorithms_ = algorithm_bit(JwtAlgorithm::kES256);
            key->ec_coordinate_bytes_ = 32;
            key->description_ = "an EC P-256 public key";
        } else if (curve == "secp384r1" || curve == "P-384") {
            key->algorithms_ = algorithm_bit(JwtAlgorithm::kES384);
            key->ec_coordinate_bytes_ = 48;
            key->description_ = "an EC P-384 public key";
        } else if (curve == "secp521r1" || curve == "P-521") {
            key->algorithms_ = algorithm_bit(JwtAlgorithm::kES512);
            key->ec_coordinate_bytes_ = 66;
            key->description_ = "an EC P-521 public key";
        } else {
            throw AuthConfigError(source, "EC curve " + std::string(curve.empty() ? "(unnamed)" : curve) +
                                              " is not supported (P-256, P-384, P-521)");
        }
    } else if (EVP_PKEY_is_a(pkey, "ED25519") || EVP_PKEY_is_a(pkey, "ED448")) {
        key->algorithms_ = algorithm_bit(JwtAlgorithm::kEdDSA);
        key->description_ = EVP_PKEY_is_a(pkey, "ED25519") ? "an Ed25519 public key" : "an Ed448 public key";
    } else {
        const char* type = EVP_PKEY_get0_type_name(pkey);
        throw AuthConfigError(source, std::string("key type ") + (type ? type : "(unknown)") +
                                          " is not supported (RSA, EC P-256/P-384/P-521, Ed25519, Ed448)");
    }
    key->fetch_digests();
    return key;
}

JwtKey::~JwtKey() {
    OPENSSL_cleanse(secret_.data(), secret_.size());
    EVP_PKEY_free(pkey_);
    for (EVP_MD* md : sha2_)
        EVP_MD_free(md);
}

void JwtKey::fetch_digests() {
    if (algorithms_ == algorithm_bit(JwtAlgorithm::kEdDSA)) return;
    static constexpr const char* kNames[] = {"SHA256", "SHA384", "SHA512"};
    for (std::size_t i = 0; i < sha2_.size(); ++i) {
        sha2_[i] = EVP_MD_fetch(nullptr, kNames[i], nullptr);
        if (sha2_[i] == nullptr) {
            clear_openssl_errors();
            throw AuthConfigError("JwtVerifier", std::string("OpenSSL has no ") + kNames[i] + " implementation");
        }
    }
}

const EVP_MD* JwtKey::md_for(JwtAlgorithm alg) const {
    const int i = sha2_index(alg);
    if (i < 0) return nullptr;
    return sha2_[static_cast<std::size_t>(i)];
}

bool JwtKey::verify(JwtAlgorithm alg, std::string_view signing_input, std::span<const unsigned char> signature) const {
    if ((algorithm_bit(alg) & algorithms_) == 0) return false;
    const bool ok =
        is_hmac(alg) ? verify_hmac(alg, signing_input, signature) : verify_pkey(alg, signing_input, signature);
    clear_openssl_errors();
    return ok;
}

bool JwtKey::verify_hmac(JwtAlgorithm alg, std::string_view input, std::span<const unsigned char> signature) const {
    unsigned char mac[EVP_MAX_MD_SIZE];
    unsigned int mac_size = 0;
    if (HMAC(md_for(alg), secret_.data(), static_cast<int>(secret_.size()),
             reinterpret_cast<const unsigned char*>(input.data()), input.size(), mac, &mac_size) == nullptr)
        return false;
    // Constant time: the comparison must not tell an attacker how many leading bytes of a forged MAC match.
    return signature.size() == mac_size && CRYPTO_memcmp(mac, signature.data(), mac_size) == 0;
}

bool JwtKey::verify_pkey(JwtAlgorithm alg, std::string_view input, std::span<const unsigned char> signature) const {
    // ES*: r || s of exactly twice the coordinate size, rewritten as DER (at most 2 * (66 + 3) + 3 bytes).
    unsigned char der[160];
    if (is_ecdsa(alg)) {
        if (signature.size() != 2 * ec_coordinate_bytes_) return false;
        const std::size_t n = ecdsa_raw_to_der(signature, ec_coordinate_bytes_, der, sizeof der);
        if (n == 0) return false;
        signature = std::span<const unsigned char>(der, n);
    }
    std::unique_ptr<EVP_MD_CTX, MdCtxFree> ctx(EVP_MD_CTX_new());
    if (!ctx) return false;
    EVP_PKEY_CTX* pctx = nullptr;  // owned by ctx
    if (EVP_DigestVerifyInit(ctx.get(), &pctx, md_for(alg), nullptr, pkey_) != 1) return false;
    if (is_pss(alg)) {
        // RFC 7518 §3.5: MGF1 with the same hash, salt as long as the hash.
        if (EVP_PKEY_CTX_set_rsa_padding(pctx, RSA_PKCS1_PSS_PADDING) != 1 ||
            EVP_PKEY_CTX_set_rsa_pss_saltlen(pctx, RSA_PSS_SALTLEN_DIGEST) != 1 ||
            EVP_PKEY_CTX_set_rsa_mgf1_md(pctx, md_for(alg)) != 1)
            return false;
    }
    return EVP_DigestVerify(ctx.get(), signature.data(), signature.size(),
                            reinterpret_cast<const unsigned char*>(input.data()), input.size()) == 1;
}

}  // namespace slipstream::policy::auth::detail
