// Sha256: one fetched EVP_MD, one EVP_Digest per call.
#include "policy/auth/sha256.h"

#include <openssl/err.h>
#include <openssl/evp.h>

#include <stdexcept>

namespace slipstream::policy::auth::detail {

struct Sha256::Md {
    EVP_MD* md = nullptr;
    ~Md() { EVP_MD_free(md); }
};

Sha256::Sha256() : md_(std::make_unique<Md>()) {
    md_->md = EVP_MD_fetch(nullptr, "SHA256", nullptr);
    if (md_->md == nullptr) {
        ERR_clear_error();
        throw std::runtime_error("OpenSSL has no SHA-256 implementation");
    }
}

Sha256::~Sha256() = default;

bool Sha256::digest(std::string_view data, std::array<unsigned char, 32>& out) const {
    unsigned int n = 0;
    if (EVP_Digest(data.data(), data.size(), out.data(), &n, md_->md, nullptr) == 1 && n == out.size()) return true;
    ERR_clear_error();
    return false;
}

}  // namespace slipstream::policy::auth::detail
