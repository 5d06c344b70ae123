// ApiKeyStore: API keys -> principal and rate, held as SHA-256 digests, loaded from a key file or a list.
#pragma once

#include <array>
#include <cstddef>
#include <cstring>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>

namespace slipstream::policy::auth {

/// One key as given to the in-memory constructor.
struct ApiKey {
    std::string principal;  // [A-Za-z0-9._@:-]{1,128}
    std::string key;        // 16..512 printable ASCII characters, no space
    std::string rate;       // opaque rate-limit token such as "100/s"; empty: the limiter's default
};

/// What a key authenticates as. Lives as long as the store.
struct ApiKeyEntry {
    std::string principal;
    std::string rate;  // empty when the key has none
};

inline constexpr std::size_t kMaxPrincipalLength = 128;
inline constexpr std::size_t kMinApiKeyLength = 16;
inline constexpr std::size_t kMaxApiKeyLength = 512;
inline constexpr std::size_t kMaxRateLength = 64;

namespace detail {
class Sha256;
}

/// Maps presented API keys to principals. Keys are never kept: the store holds the SHA-256 digest of
/// each key in a hash map, and find() hashes the presented key and looks the digest up, so neither
/// memory nor lookup time depends on how many bytes of a real key a guess shares.
/// Immutable after construction: find() may be called from any number of threads at once.
/// Construction is control plane and throws AuthConfigError; find() never throws.
class ApiKeyStore {
  public:
    using Digest = std::array<unsigned char, 32>;

    /// Reads a key file: one `<principal> <key> [<rate>]` per line, fields separated by spaces or tabs;
    /// blank lines and lines whose first non-blank character is '#' are skipped; CRLF is accepted.
    /// Throws AuthConfigError "<path>:<line>: <reason>" for a bad line, a key or principal already
    /// given (the reason names the earlier line), or "<path>: cannot read: <strerror>".
    static ApiKeyStore load_file(const std::string& path);

    /// As load_file(), for the text of a key file; `source` names it in messages.
    static ApiKeyStore parse(std::string_view text, std::string_view source);

    /// Builds the store from a list (the C++ API, tests). Throws AuthConfigError "entry <n>: <reason>"
    /// (1-based) with the same reasons as a key file.
    explicit ApiKeyStore(std::span<const ApiKey> keys);

    ApiKeyStore(ApiKeyStore&&) noexcept;
    ApiKeyStore& operator=(ApiKeyStore&&) noexcept;
    ~ApiKeyStore();

    /// The entry of `presented_key`, or nullptr when no key matches. The pointer lives as long as the store.
    /// ~0.3 us with 10,000 keys: one SHA-256 of the key and one hash-map probe (shared 2-core VM, see README).
    const ApiKeyEntry* find(std::string_view presented_key) const;

    /// Number of keys.
    std::size_t size() const { return entries_.size(); }
    /// Calls `fn(const ApiKeyEntry&)` for every key's entry, in no particular order (the server checks
    /// every key's rate once at start).
    template <typename Fn>
    void for_each_entry(Fn&& fn) const {
        for (const auto& [digest, entry] : entries_)
            fn(entry);
    }

  private:
    struct DigestHash {
        std::size_t operator()(const Digest& d) const {
            std::size_t h;  // the digest is uniformly distributed: its first bytes are a good hash
            std::memcpy(&h, d.data(), sizeof h);
            return h;
        }
    };
    class Builder;

    ApiKeyStore();

    std::unique_ptr<const detail::Sha256> sha256_;
    std::unordered_map<Digest, ApiKeyEntry, DigestHash> entries_;
};

}  // namespace slipstream::policy::auth
