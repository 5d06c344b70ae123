// TokenStore: the table, the in-memory index of live tokens, and the refresher that keeps replicas in step.
#include "agent/shared_state/token_store.h"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/rand.h>

#include <charconv>
#include <chrono>
#include <future>

#include "agent/sessions/sql_text.h"
#include "base/hex.h"
#include "base/log.h"

namespace slipstream::agent::shared_state {

std::string sql_text_for(store::Database& db, std::string_view sql);

namespace {

constexpr const char* kCreate =
    "CREATE TABLE IF NOT EXISTS slipstream_api_tokens (id text PRIMARY KEY, digest text NOT NULL UNIQUE, "
    "principal text NOT NULL, scopes text NOT NULL, created_at bigint NOT NULL, expires_at bigint, "
    "last_used_at bigint, revoked_at bigint)";
constexpr const char* kLive =
    "SELECT id, digest, principal, scopes, expires_at FROM slipstream_api_tokens WHERE revoked_at IS NULL";
constexpr const char* kCountLive = "SELECT count(*) FROM slipstream_api_tokens WHERE revoked_at IS NULL";
constexpr const char* kInsert =
    "INSERT INTO slipstream_api_tokens (id, digest, principal, scopes, created_at, expires_at) "
    "VALUES ($1, $2, $3, $4, $5, $6)";
constexpr const char* kColumns = "id, principal, scopes, created_at, expires_at, last_used_at, revoked_at";
constexpr const char* kPurge =
    "DELETE FROM slipstream_api_tokens WHERE (revoked_at IS NOT NULL AND revoked_at < $1) OR "
    "(expires_at IS NOT NULL AND expires_at < $1)";
constexpr const char* kUsed =
    "UPDATE slipstream_api_tokens SET last_used_at = $2 WHERE id = $1 AND (last_used_at IS NULL OR last_used_at < $2)";

std::string random_text(std::size_t bytes, bool hex) {
    std::vector<unsigned char> raw(bytes);
    if (RAND_bytes(raw.data(), static_cast<int>(bytes)) != 1) throw std::runtime_error("RAND_bytes failed");
    if (hex) return base::hex(std::string_view(reinterpret_cast<const char*>(raw.data()), raw.size()));
    static constexpr char kB64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    std::string out;
    std::uint32_t acc = 0;
    int bits = 0;
    for (unsigned char c : raw) {
        acc = (acc << 8) | c;
        bits += 8;
        while (bits >= 6) {
            bits -= 6;
            out.push_back(kB64[(acc >> bits) & 63]);
        }
    }
    if (bits > 0) out.push_back(kB64[(acc << (6 - bits)) & 63]);
    return out;
}

store::QueryResult run_blocking(store::Database& db, std::string sql, store::Params params) {
    std::promise<store::QueryResult> done;
    auto future = done.get_future();
    db.query(sql_text_for(db, sql), std::move(params), [&done](store::QueryResult r) { done.set_value(std::move(r)); });
    return future.get();
}

std::int64_t to_int(std::string_view text) {
    std::int64_t v = 0;
    std::from_chars(text.data(), text.data() + text.size(), v);
    return v;
}

TokenInfo info_of(const store::ResultSet& rows, std::size_t row) {
    TokenInfo t;
    t.id = std::string(rows.text(row, 0));
    t.principal = std::string(rows.text(row, 1));
    t.scopes = std::string(rows.text(row, 2));
    t.created_at = to_int(rows.text(row, 3));
    t.expires_at = rows.is_null(row, 4) ? 0 : to_int(rows.text(row, 4));
    t.last_used_at = rows.is_null(row, 5) ? 0 : to_int(rows.text(row, 5));
    t.revoked_at = rows.is_null(row, 6) ? 0 : to_int(rows.text(row, 6));
    return t;
}

}  // namespace

std::string sql_text_for(store::Database& db, std::string_view sql) {
    return sessions::sql_for(db.backend(), sql);
}

std::string sha256_hex(std::string_view text) {
    unsigned char digest[EVP_MAX_MD_SIZE];
    unsigned int n = 0;
    EVP_Digest(text.data(), text.size(), digest, &n, EVP_sha256(), nullptr);
    return base::hex(std::string_view(reinterpret_cast<const char*>(digest), n));
}

TokenStore::TokenStore(std::shared_ptr<store::Database> db, TokenStoreOptions options)
    : db_(std::move(db)), options_(std::move(options)) {
    if (!options_.admin_token.empty()) {
        admin_digest_ = sha256_hex(options_.admin_token);
        options_.admin_token.assign(options_.admin_token.size(), '\0');
        options_.admin_token.clear();
        admin_ = std::make_shared<const IssuedCredential>(IssuedCredential{"admin", "admin"});
    }
}

TokenStore::~TokenStore() {
    close();
}

base::Result<std::shared_ptr<TokenStore>> TokenStore::open(std::shared_ptr<store::Database> db,
                                                           TokenStoreOptions options) {
    if (!options.admin_token.empty() && (options.admin_token.size() < 16 || !options.admin_token.starts_with("sst_")))
        return base::Status::invalid_argument("admin-token: must start with sst_ and hold at least 16 characters");
    store::QueryResult created = run_blocking(*db, kCreate, {});
    if (!created.is_ok()) return base::Status::unavailable("tokens: " + created.status().message());
    auto tokens = std::make_shared<TokenStore>(std::move(db), std::move(options));
    SLIPSTREAM_RETURN_IF_ERROR(tokens->reload());
    tokens->refresher_ = std::thread([raw = tokens.get()] { raw->run(); });
    return tokens;
}

std::shared_ptr<const IssuedCredential> TokenStore::find(std::string_view token, std::int64_t now_unix) const {
    const std::string digest = sha256_hex(token);
    if (admin_ && CRYPTO_memcmp(digest.data(), admin_digest_.data(), digest.size()) == 0) return admin_;
    std::shared_ptr<Live> live;
    {
        std::shared_lock lock(mutex_);
        auto it = by_digest_.find(digest);
        if (it == by_digest_.end()) return nullptr;
        live = it->second;
    }
    if (live->expires_at != 0 && now_unix >= live->expires_at) return nullptr;
    if (live->used.load(std::memory_order_relaxed) < now_unix) live->used.store(now_unix, std::memory_order_relaxed);
    return live->credential;
}

base::Status TokenStore::reload() {
    std::uint64_t read_after = 0;  // changes up to this one are in what the SELECT reads
    {
        std::shared_lock lock(mutex_);
        read_after = seq_;
    }
    store::QueryResult r = run_blocking(*db_, kLive, {});
    if (!r.is_ok()) return r.status();
    const store::ResultSet& rows = r.value();
    std::unordered_map<std::string, std::shared_ptr<Live>> fresh;
    {
        std::shared_lock lock(mutex_);
        for (std::size_t i = 0; i < rows.row_count(); ++i) {
            std::string digest(rows.text(i, 1));
            auto old = by_digest_.find(digest);
            if (old != by_digest_.end()) {
                fresh.emplace(std::move(digest), old->second);  // keeps its last-use counters
                continue;
            }
            auto live = std::make_shared<Live>();
            live->id = std::string(rows.text(i, 0));
            live->credential = std::make_shared<const IssuedCredential>(
                IssuedCredential{std::string(rows.text(i, 2)), std::string(rows.text(i, 3))});
            live->expires_at = rows.is_null(i, 4) ? 0 : to_int(rows.text(i, 4));
            fresh.emplace(std::move(digest), std::move(live));
        }
    }
    std::unique_lock lock(mutex_);
    for (const LocalChange& c : changes_) {
        if (c.seq <= read_after) continue;
        if (c.issued)
            fresh[c.digest] = c.issued;
        else
            std::erase_if(fresh, [&c](const auto& e) { return e.second->id == c.revoked_id; });
    }
    std::erase_if(changes_, [read_after](const LocalChange& c) { return c.seq <= read_after; });
    by_digest_.swap(fresh);
    return base::Status::ok();
}

void TokenStore::flush_last_used() {
    std::vector<std::shared_ptr<Live>> used;
    {
        std::shared_lock lock(mutex_);
        for (const auto& [digest, live] : by_digest_)
            if (live->used.load() > live->written.load()) used.push_back(live);
    }
    for (const std::shared_ptr<Live>& live : used) {
        const std::int64_t at = live->used.load();
        store::QueryResult r = run_blocking(*db_, kUsed, {live->id, at});
        if (r.is_ok()) live->written.store(at);
    }
}

void TokenStore::purge() {
    const std::int64_t now =
        std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch()).count();
    (void)run_blocking(*db_, kPurge, {now - options_.keep_revoked_s});
}

void TokenStore::run() {
    std::unique_lock lock(stop_mutex_);
    auto last_purge = std::chrono::steady_clock::now();
    while (!stopping_) {
        stop_cv_.wait_for(lock, std::chrono::milliseconds(options_.refresh_ms));
        if (stopping_) break;
        lock.unlock();
        flush_last_used();
        if (std::chrono::steady_clock::now() - last_purge >= std::chrono::minutes(1)) {
            last_purge = std::chrono::steady_clock::now();
            purge();
        }
        if (base::Status s = reload(); !s.is_ok())
            base::log_message(base::LogLevel::kWarn, "tokens: reading the token table failed: " + s.message());
        lock.lock();
    }
}

void TokenStore::close() {
    {
        std::lock_guard lock(stop_mutex_);
        if (stopping_) return;
        stopping_ = true;
    }
    stop_cv_.notify_all();
    if (refresher_.joinable()) refresher_.join();
    flush_last_used();
}

void TokenStore::issue(std::string principal, std::string scopes, std::int64_t expires_at, std::int64_t now_unix,
                       IssueDone done) {
    // The count and the insert are two statements: replicas issuing at the same moment may pass max_tokens by a few.
    auto self = shared_from_this();
    db_->query(
        sql_text_for(*db_, kCountLive), {},
        [self, principal = std::move(principal), scopes = std::move(scopes), expires_at, now_unix,
         done = std::move(done)](store::QueryResult counted) mutable {
            if (!counted.is_ok()) {
                done(counted.status());
                return;
            }
            if (static_cast<std::uint64_t>(to_int(counted.value().text(0, 0))) >= self->options_.max_tokens) {
                done(base::Status::resource_exhausted("there are already " + std::to_string(self->options_.max_tokens) +
                                                      " live tokens (--token-max); revoke some first"));
                return;
            }
            TokenInfo info;
            info.id = "tok_" + random_text(8, true);
            info.principal = std::move(principal);
            info.scopes = std::move(scopes);
            info.created_at = now_unix;
            info.expires_at = expires_at;
            std::string secret = "sst_" + random_text(32, false);
            std::string digest = sha256_hex(secret);
            store::Params params{info.id,         digest,
                                 info.principal,  info.scopes,
                                 info.created_at, expires_at == 0 ? store::Value() : store::Value(expires_at)};
            self->db_->query(sql_text_for(*self->db_, kInsert), std::move(params),
                             [self, info = std::move(info), secret = std::move(secret), digest = std::move(digest),
                              done = std::move(done)](store::QueryResult r) mutable {
                                 if (!r.is_ok()) {
                                     done(r.status());
                                     return;
                                 }
                                 auto live = std::make_shared<Live>();
                                 live->id = info.id;
                                 live->credential = std::make_shared<const IssuedCredential>(
                                     IssuedCredential{info.principal, info.scopes});
                                 live->expires_at = info.expires_at;
                                 {
                                     std::unique_lock lock(self->mutex_);
                                     self->by_digest_[digest] = live;
                                     self->changes_.push_back({++self->seq_, digest, std::move(live), {}});
                                 }
                                 done(std::make_pair(std::move(info), std::move(secret)));
                             });
        });
}

void TokenStore::list(ListDone done) {
    const std::string sql = std::string("SELECT ") + kColumns + " FROM slipstream_api_tokens ORDER BY created_at, id";
    db_->query(sql, {}, [done = std::move(done)](store::QueryResult r) {
        if (!r.is_ok()) {
            done(r.status());
            return;
        }
        std::vector<TokenInfo> out;
        for (std::size_t i = 0; i < r.value().row_count(); ++i)
            out.push_back(info_of(r.value(), i));
        done(std::move(out));
    });
}

void TokenStore::revoke(std::string id, std::int64_t now_unix, RevokeDone done) {
    auto self = shared_from_this();
    const std::string sql = std::string(
                                "UPDATE slipstream_api_tokens SET revoked_at = $2 WHERE id = $1 AND "
                                "revoked_at IS NULL RETURNING ") +
                            kColumns;
    db_->query(sql_text_for(*db_, sql), {id, now_unix}, [self, id, done = std::move(done)](store::QueryResult r) {
        if (!r.is_ok()) {
            done(r.status());
            return;
        }
        if (r.value().row_count() == 0) {
            done(base::Status::not_found("no live token " + id));
            return;
        }
        {
            std::unique_lock lock(self->mutex_);
            std::erase_if(self->by_digest_, [&id](const auto& e) { return e.second->id == id; });
            self->changes_.push_back({++self->seq_, {}, nullptr, id});
        }
        done(info_of(r.value(), 0));
    });
}

}  // namespace slipstream::agent::shared_state
