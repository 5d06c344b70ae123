// TokenStore: scoped API tokens issued and revoked at runtime, kept as SHA-256 digests in the store.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "base/result.h"
#include "slipstream/issued_credentials.h"
#include "store/database/database.h"

namespace slipstream::agent::shared_state {

struct TokenStoreOptions {
    std::string admin_token;                // the bootstrap credential (principal "admin", scope "admin"); empty: none
    std::uint32_t refresh_ms = 1'000;       // how often the table is read again (tokens issued or revoked elsewhere)
    std::uint64_t max_tokens = 10'000;      // live (unrevoked) tokens; then 409
    std::int64_t max_ttl_s = 366 * 86'400;  // the longest lifetime a token may be given
    std::int64_t keep_revoked_s = 86'400;   // revoked and expired rows stay listed this long, then are deleted
};

/// One token's row, without its secret (the store never had it).
struct TokenInfo {
    std::string id;
    std::string principal;
    std::string scopes;
    std::int64_t created_at = 0;
    std::int64_t expires_at = 0;    // 0: never
    std::int64_t last_used_at = 0;  // 0: never
    std::int64_t revoked_at = 0;    // 0: live
};

/// Tokens are "sst_" + 43 base64url characters (32 random bytes); only their SHA-256 digest (hex) is stored, next to
/// an id ("tok_" + 16 hex characters) that names them in the admin routes. Every live token is kept in memory
/// (digest -> principal, scopes, expiry), so find() costs a hash and a lookup and never waits on the database. This
/// process sees its own issues and revocations at once; those of other processes after at most `refresh_ms`,
/// when a background thread reads the table again. The same thread writes the last-used times (the latest use of
/// each token, at most once per refresh). Thread-safe.
class TokenStore final : public IssuedCredentials, public std::enable_shared_from_this<TokenStore> {
  public:
    using IssueDone = std::function<void(base::Result<std::pair<TokenInfo, std::string>> issued)>;
    using ListDone = std::function<void(base::Result<std::vector<TokenInfo>> tokens)>;
    using RevokeDone = std::function<void(base::Result<TokenInfo> revoked)>;

    /// Creates the table when missing and reads the live tokens (blocking: call at start-up).
    static base::Result<std::shared_ptr<TokenStore>> open(std::shared_ptr<store::Database> db,
                                                          TokenStoreOptions options);
    TokenStore(std::shared_ptr<store::Database> db, TokenStoreOptions options);
    ~TokenStore() override;

    std::string_view prefix() const override { return "sst_"; }
    std::shared_ptr<const IssuedCredential> find(std::string_view token, std::int64_t now_unix) const override;

    /// A new token for `principal` with `scopes`, expiring at `expires_at` (0: never): its row and, once, its
    /// secret. kResourceExhausted past max_tokens. `done` runs on the database's thread.
    void issue(std::string principal, std::string scopes, std::int64_t expires_at, std::int64_t now_unix,
               IssueDone done);
    /// Every token, live and revoked (revoked or expired rows are deleted keep_revoked_s later), oldest first.
    void list(ListDone done);
    /// Revokes a token (kNotFound for an unknown id; a revoked token stays revoked).
    void revoke(std::string id, std::int64_t now_unix, RevokeDone done);
    /// Stops the thread after a last write of the last-used times. Idempotent.
    void close();
    const TokenStoreOptions& options() const { return options_; }

  private:
    struct Live {
        std::shared_ptr<const IssuedCredential> credential;
        std::string id;
        std::int64_t expires_at = 0;
        mutable std::atomic<std::int64_t> used{0};     // latest use seen here
        mutable std::atomic<std::int64_t> written{0};  // latest use written to the table
    };
    base::Status reload();   // blocking; the refresher's thread or open()
    void flush_last_used();  // blocking
    void purge();            // blocking: deletes rows revoked or expired more than keep_revoked_s ago
    void run();

    std::shared_ptr<store::Database> db_;
    TokenStoreOptions options_;
    std::string admin_digest_;
    std::shared_ptr<const IssuedCredential> admin_;

    // This process's issues and revocations, in order, kept until a reload whose read began after them: a reload
    // that read the table just before one of them re-applies it instead of undoing it.
    struct LocalChange {
        std::uint64_t seq = 0;
        std::string digest;            // issued: its digest and entry
        std::shared_ptr<Live> issued;  // null: a revocation of `revoked_id`
        std::string revoked_id;
    };

    mutable std::shared_mutex mutex_;
    std::unordered_map<std::string, std::shared_ptr<Live>> by_digest_;  // hex SHA-256 -> live token
    std::vector<LocalChange> changes_;                                  // under mutex_
    std::uint64_t seq_ = 0;                                             // under mutex_: the last change's

    std::mutex stop_mutex_;
    std::condition_variable stop_cv_;
    bool stopping_ = false;
    std::thread refresher_;
};

/// Hex SHA-256 of `text` (OpenSSL).
std::string sha256_hex(std::string_view text);

}  // namespace slipstream::agent::shared_state
