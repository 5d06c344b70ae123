// Sha256: SHA-256 through OpenSSL EVP with the implementation fetched once, for API key digests.
#pragma once

#include <array>
#include <memory>
#include <string_view>

namespace slipstream::policy::auth::detail {

/// Fetches OpenSSL's SHA-256 once (an implicit fetch per call would take the provider store's lock on
/// every request). Immutable after construction; operator() may run on many threads at once.
/// Throws std::runtime_error when OpenSSL has no SHA-256 (a broken installation).
class Sha256 {
  public:
    Sha256();
    ~Sha256();
    Sha256(const Sha256&) = delete;
    Sha256& operator=(const Sha256&) = delete;

    /// Writes the digest of `data` to `out`; false only when OpenSSL fails (allocation), `out` then unset.
    [[nodiscard]] bool digest(std::string_view data, std::array<unsigned char, 32>& out) const;

  private:
    struct Md;
    std::unique_ptr<Md> md_;
};

}  // namespace slipstream::policy::auth::detail
