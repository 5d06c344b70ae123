// State that replicas share through a store: scoped API tokens issued and revoked at runtime (TokenService, with
// their /admin/tokens routes) and the rate limit's buckets in PostgreSQL (open_rate_limit_store).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "slipstream/app.h"
#include "slipstream/issued_credentials.h"
#include "slipstream/rate_limit_store.h"

namespace slipstream {

/// The server's --tokens, --admin-token and --token-* flags, with their defaults.
struct TokensOptions {
    /// sqlite:///absolute/path.db, sqlite://relative/path.db or postgresql://... (shared by replicas). Required.
    std::string store_url;
    /// The bootstrap credential: principal "admin" with scope "admin" ("sst_..." and at least 16 characters); only
    /// its SHA-256 digest is kept. Empty: none (then only tokens already in the store can administer).
    std::string admin_token;
    std::uint32_t refresh_ms = 1'000;       // how often the table is read again (other replicas' changes)
    std::uint64_t max_tokens = 10'000;      // live (unrevoked) tokens; then 409
    std::int64_t max_ttl_s = 366 * 86'400;  // the longest expiresIn
    std::int64_t keep_revoked_s = 86'400;   // revoked and expired tokens stay listed this long
};

/// The token table (SHA-256 digests only), kept in memory and refreshed from the store by a thread of its own.
/// Give credentials() to ServerOptions::issued_credentials before the App is made (with `auth` optional or
/// required), then mount() the admin routes on that App. Keep the service until the App stopped. Thread-safe.
class TokenService {
  public:
    /// Blocking (opens the store, creates the table, reads the live tokens). Throws std::invalid_argument for a bad
    /// option or admin token, std::runtime_error when the store cannot be opened.
    explicit TokenService(TokensOptions options);
    ~TokenService();  // close()
    TokenService(const TokenService&) = delete;
    TokenService& operator=(const TokenService&) = delete;

    /// What the engine's auth checks presented tokens against (ServerOptions::issued_credentials).
    std::shared_ptr<const IssuedCredentials> credentials() const;
    /// Registers POST/GET `prefix` and GET/DELETE `prefix`/{id} on `app` before it starts (callers need the `admin`
    /// or a `tenant_admin:<t>` scope; src/agent/shared_state/README.md). `openapi_path` non-empty: GET there serves
    /// the routes' OpenAPI 3.1 document. Returns that document. Throws std::invalid_argument on a route clash.
    std::string mount(App& app, std::string_view prefix = "/admin/tokens", std::string_view openapi_path = "");
    /// Writes the last-used times and stops the refresher (blocking; idempotent). Call after the Apps stopped.
    void close();

  private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

/// Rate-limit buckets in a PostgreSQL table every process and replica shares (ServerOptions::rate_limit_store);
/// `timeout_ms` bounds one batch's statement (then ServerOptions::rate_limit_store_failure applies). Blocking
/// (connects, creates the table). Throws std::invalid_argument for a SQLite URL (its file is not shared by replicas)
/// or a timeout outside 1..60000, std::runtime_error when the database cannot be reached.
std::shared_ptr<RateLimitStore> open_rate_limit_store(const std::string& store_url, std::uint32_t timeout_ms = 250);

}  // namespace slipstream
