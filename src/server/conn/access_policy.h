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
#include "slipstream/response.h"
#include "slipstream/server_options.h"

namespace slipstream::server {

/// What admit() decided for one request.
struct Admission {
    /// Set: answer this (401 or 429) instead of calling the handler.
    std::optional<Response> refusal;
    /// The authenticated principal (the key file's name or the token's `sub`); empty when anonymous. Lives as
    /// long as the policy (API keys) or the arena given to admit() (JWTs).
    std::string_view principal;
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
    bool active() const { return authenticator_ != nullptr || limiter_ != nullptr; }
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

  private:
    enum class Mode { kOff, kOptional, kRequired };

    Response unauthorized(std::string_view detail, bool invalid_token) const;
    Response too_many(const policy::ratelimit::Decision& decision) const;
    // The limiter key: "p:" + principal, or "a:" + the address bytes (an IPv6 client by its /64).
    static std::size_t limiter_key(std::string_view principal, const net::SocketAddress* peer, char* buf,
                                   std::size_t cap);

    Mode mode_ = Mode::kOff;
    bool fastapi_style_ = false;
    std::string challenge_ = "Bearer";                                   // WWW-Authenticate without credentials
    std::string invalid_challenge_ = R"(Bearer error="invalid_token")";  // ... with invalid ones
    bool limit_everyone_ = false;  // rate_limit set; else only keys with a rate of their own are limited
    std::unique_ptr<const policy::auth::Authenticator> authenticator_;
    std::unique_ptr<policy::ratelimit::RateLimiter> limiter_;
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
