// IssuedCredentials: tokens an application issues at runtime, checked by the engine's auth next to API keys and JWTs.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

namespace slipstream {

/// Whom a presented token stands for.
struct IssuedCredential {
    std::string principal;
    /// Space-separated scopes (OAuth 2.0's `scope` syntax): "admin", "tenant_admin:acme", "read:acme", "write".
    std::string scopes;
};

/// A table of issued tokens (the server's `issued_credentials`). The engine's auth hands it every credential that
/// starts with prefix(), in the API-key field or as `Authorization: Bearer`, and nothing else; a token it does not
/// know is refused with 401.
class IssuedCredentials {
  public:
    virtual ~IssuedCredentials() = default;
    /// Tokens start with it ("sst_"); fixed for the object's life.
    virtual std::string_view prefix() const = 0;
    /// The credential `token` stands for at `now_unix` (seconds since the epoch), or null when it is unknown,
    /// revoked or expired. Called on I/O threads, any number at once: must not block on I/O.
    virtual std::shared_ptr<const IssuedCredential> find(std::string_view token, std::int64_t now_unix) const = 0;
};

}  // namespace slipstream
