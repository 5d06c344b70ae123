// AccessPolicy: the request pipeline's authentication (401) and per-principal rate limits (429).
#pragma once

#include <array>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>

#include "base/arena.h"
#include "base/clock.h"
#include "http/h1/header.h"
#include "metrics/registry.h"
#include "net/socket_address.h"
#include "policy/auth/authenticator.h"
#include "policy/ratelimit/rate_limiter.h"
#include "server/conn/shared_rate_limit.h"
#include "slipstream/issued_credentials.h"
#include "slipstream/response.h"
#include "slipstream/server_options.h"

namespace slipstream::server {

/// What admit() decided for one request.
struct Admission {
    /// Set: answer this (401 or 429) instead of calling the handler.
    std::optional<Response> refusal;
    /// The authenticated principal (the key file's name or the token's `sub`); empty when anonymous. Lives as
    /// long as the policy (API keys), the arena given to admit() (JWTs) or `credential` (issued tokens).
    std::string_view principal;
    /// The principal's scopes, space-separated, when its credential carries any (an issued token; a JWT with a
    /// `scope` or `scopes` claim); `scoped` false: the credential says nothing of scopes (API keys, other JWTs).
    std::string_view scopes;
    bool scoped = false;
    /// Keeps an issued token's principal and scopes alive.
    std::shared_ptr<const void> credential;
    /// Set when the rate limit is shared (ServerOptions::rate_limit_store) and the request is to be counted there:
    /// the caller finishes with check_shared(shared_key, shared_rate, ...) before calling the handler.
    std::string shared_key;
    const policy::ratelimit::Rate* shared_rate = nullptr;
};

/// Built once per server from ServerOptions (auth_*, api_key*, jwt_*, rate_limit*), then shared by every I/O
/// thread: admit() is thread-safe. Routes that are public (the engine's probes and `auth_public_paths`) are
/// neither authenticated nor limited. Off (no cost per request) while `auth` is "off" and `rate_limit` empty.
class AccessPolicy {
    static constexpr std::size_t kAuthErrorCount =
        static_cast<std::size_t>(policy::auth::AuthError::kMissingSubject) + 1;

  public:
    /// Control plane: throws std::invalid_argument "<option>: <reason>" for a bad mode, key file, JWT key,
    /// rate (also a key's own rate in the key file), or credentials given while `auth` is "off".
    AccessPolicy(const ServerOptions& options, metrics::Registry& registry);
    AccessPolicy(const AccessPolicy&) = delete;
    AccessPolicy& operator=(const AccessPolicy&) = delete;

    /// True when requests are authenticated or limited at all.
    bool active() const { return authenticator_ != nullptr || issued_ != nullptr || limiter_ != nullptr; }
    /// Routes exempt from both: the builtin probes (added by the server) and `auth_public_paths`.
    void add_public_route(std::string_view pattern) { public_routes_.emplace(pattern); }
    /// True when admit() may put JWT claims into its arena (a JWT key is configured).
    bool needs_arena() const { return authenticator_ != nullptr && authenticator_->jwt() != nullptr; }
    bool is_public(std::string_view pattern) const { return public_routes_.find(pattern) != public_routes_.end(); }
    /// The URL 401s name as `resource_metadata` (RFC 9728 §5.1); empty: none. Set before serving.
    void set_resource_metadata(std::string_view url);
    /// Throws std::invalid_argument "auth-resource-metadata: ..." for a URL that is not absolute http(s) or could
    /// not stand in a quoted-string.
    static void check_resource_metadata(std::string_view url);

    /// Authenticates the request (its fields), then counts it against its principal's rate (or its client
    /// address's, when anonymous). JWT claims go into `arena`. `now` is the loop's monotonic time.
    Admission admit(std::span<const http::h1::Header> headers, const net::SocketAddress* peer, base::MonoNanos now,
                    base::Arena& arena);

    /// The shared store's decision on a request admit() left to it (Admission::shared_key): `done` hears the
    /// result once, on any thread (the store's or, when it failed at once, this one).
    void check_shared(std::string key, const policy::ratelimit::Rate* rate, base::MonoNanos now,
                      SharedRateLimit::Done done);
    /// The 429 of a refused decision; the 503 of a shared store that could not answer in the "closed" mode.
    Response too_many(const policy::ratelimit::Decision& decision) const;
    Response store_unavailable() const;
    /// This process's own limiter on `key` (a request the shared store is not asked about: a WebSocket upgrade).
    policy::ratelimit::Decision local_check(std::string_view key, base::MonoNanos now,
                                            const policy::ratelimit::Rate* rate) {
        return limiter_->check(key, now, default_rate_ && rate == &*default_rate_ ? nullptr : rate);
    }

  private:
    enum class Mode { kOff, kOptional, kRequired };

    // The token's principal and scopes, or a refusal (unknown, revoked or expired: 401).
    bool admit_issued(std::string_view token, std::int64_t unix_now, Admission& admission);
    // The rate limit of an admitted request: nothing, a refusal (local limiter or fast path) or a shared check.
    void limit(const policy::ratelimit::Rate* own, const net::SocketAddress* peer, base::MonoNanos now,
               Admission& admission);

    Response unauthorized(std::string_view detail, bool invalid_token) const;
    // The limiter key: "p:" + principal, or "a:" + the address bytes (an IPv6 client by its /64).
    static std::size_t limiter_key(std::string_view principal, const net::SocketAddress* peer, char* buf,
                                   std::size_t cap);

    Mode mode_ = Mode::kOff;
    bool fastapi_style_ = false;
    std::string api_key_header_;        // where issued tokens may arrive besides Authorization: Bearer
    std::string challenge_ = "Bearer";  // WWW-Authenticate without credentials
    std::string invalid_challenge_ = R"(Bearer error="invalid_token")";  // ... with invalid ones
    bool limit_everyone_ = false;  // rate_limit set; else only keys with a rate of their own are limited
    std::unique_ptr<const policy::auth::Authenticator> authenticator_;
    std::shared_ptr<policy::ratelimit::RateLimiter> limiter_;  // shared with the shared limit's local fallback
    std::optional<policy::ratelimit::Rate> default_rate_;      // rate_limit, when set
    std::uint64_t burst_ = 0;                                  // rate_limit_burst (0: the rate's count)
    std::shared_ptr<SharedRateLimit> shared_;                  // set with a rate_limit_store
    std::shared_ptr<const IssuedCredentials> issued_;          // tokens issued at runtime
    std::string issued_prefix_;
    // A key's own rate (the key file's third column), parsed once: rate text -> Rate.
    struct TextHash {
        using is_transparent = void;
        std::size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
    };
    std::unordered_map<std::string, policy::ratelimit::Rate, TextHash, std::equal_to<>> key_rates_;
    std::unordered_set<std::string, TextHash, std::equal_to<>> public_routes_;
    // slipstream_auth_refused_total{reason} (registered when authentication is on), one child per reason resolved
    // at start (no lookup per refusal):
    // index 0 (AuthError::kNone) counts requests without credentials where they are required.
    std::array<metrics::Counter*, kAuthErrorCount> refused_{};
    metrics::Counter* limited_ = nullptr;  // slipstream_rate_limited_total (registered when limits are on)
};

}  // namespace slipstream::server
