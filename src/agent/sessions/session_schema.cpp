// migrate_session_schema(): portable DDL (TEXT, BIGINT, foreign keys with ON DELETE CASCADE) per version.
#include "agent/sessions/session_schema.h"

#include <future>
#include <string>
#include <vector>

#include "agent/sessions/sql_text.h"

namespace slipstream::agent::sessions {

namespace {

// Index i holds the statements that bring version i to version i + 1. Times are epoch milliseconds; JSON is kept
// as compact text (the same on both backends); a session's events and idempotency keys go with it.
const std::vector<std::vector<const char*>>& migrations() {
    static const std::vector<std::vector<const char*>> kMigrations = {
        {
            "CREATE TABLE agent_sessions (id TEXT PRIMARY KEY, owner TEXT NOT NULL, metadata TEXT NOT NULL, "
            "state TEXT NOT NULL, state_version BIGINT NOT NULL, last_seq BIGINT NOT NULL, ttl_ms BIGINT NOT NULL, "
            "created_at BIGINT NOT NULL, updated_at BIGINT NOT NULL, expires_at BIGINT NOT NULL)",
            "CREATE INDEX agent_sessions_by_owner ON agent_sessions (owner, id)",
            "CREATE INDEX agent_sessions_by_expiry ON agent_sessions (expires_at)",
            "CREATE TABLE agent_session_events (session_id TEXT NOT NULL REFERENCES agent_sessions (id) ON DELETE "
            "CASCADE, seq BIGINT NOT NULL, role TEXT NOT NULL, content TEXT NOT NULL, created_at BIGINT NOT NULL, "
            "PRIMARY KEY (session_id, seq))",
            "CREATE TABLE agent_session_appends (session_id TEXT NOT NULL REFERENCES agent_sessions (id) ON DELETE "
            "CASCADE, idempotency_key TEXT NOT NULL, first_seq BIGINT NOT NULL, last_seq BIGINT NOT NULL, "
            "PRIMARY KEY (session_id, idempotency_key))",
        },
        {
            // One row per principal that created a session: locked by each create, so that the count of a
            // principal's sessions is exact under concurrency.
            "CREATE TABLE agent_principals (owner TEXT PRIMARY KEY)",
            "INSERT INTO agent_principals (owner) SELECT DISTINCT owner FROM agent_sessions",
        },
        {
            // Live followers of the session in any process (PostgreSQL): an append NOTIFYs the other replicas
            // only while some follow it. A process that dies leaves its count up (more NOTIFYs, never fewer).
            "ALTER TABLE agent_sessions ADD COLUMN followers BIGINT NOT NULL DEFAULT 0",
        },
    };
    return kMigrations;
}

base::Status run_blocking(store::Database& db, const std::string& sql) {
    std::promise<base::Status> done;
    db.query(sql, {}, [&done](store::QueryResult r) { done.set_value(r.status()); });
    return done.get_future().get();
}

// Runs `statements` from `next` on in order, then calls `done`.
void run_in_order(std::shared_ptr<Transaction> tx, std::shared_ptr<std::vector<std::string>> statements,
                  std::size_t next, std::function<void(base::Status)> done) {
    if (next == statements->size()) return tx->commit(std::move(done));
    std::string sql = (*statements)[next];
    tx->query(sql, {}, [tx, statements, next, done](store::QueryResult r) {
        if (!r.is_ok()) return done(r.status());
        run_in_order(tx, statements, next + 1, done);
    });
}

base::Status migrate_once(store::Database& db, TransactionRunner& runner, const Migrations& m) {
    const std::string table(m.version_table);
    const std::int64_t latest = static_cast<std::int64_t>(m.steps.size());
    SLIPSTREAM_RETURN_IF_ERROR(run_blocking(
        db, "CREATE TABLE IF NOT EXISTS " + table + " (version BIGINT PRIMARY KEY, applied_at BIGINT NOT NULL)"));
    const bool postgres = db.backend() == store::Backend::kPostgres;
    std::promise<base::Status> finished;
    auto done = [&finished](base::Status s) { finished.set_value(std::move(s)); };
    runner.run([postgres, done, table, latest, &m](base::Result<std::shared_ptr<Transaction>> begun) {
        if (!begun.is_ok()) return done(begun.status());
        std::shared_ptr<Transaction> tx = std::move(begun).value();
        auto read_version = [tx, done, table, latest, &m](store::QueryResult r) {
            if (!r.is_ok()) return done(r.status());
            const std::int64_t current = std::stoll(std::string(r->text(0, 0)));
            if (current > latest)
                return done(base::Status::invalid_argument("the database's " + std::string(m.what) +
                                                           " schema is version " + std::to_string(current) +
                                                           ", newer than this server's " + std::to_string(latest)));
            auto statements = std::make_shared<std::vector<std::string>>();
            for (std::int64_t v = current; v < latest; ++v) {
                for (const char* sql : m.steps[static_cast<std::size_t>(v)])
                    statements->emplace_back(sql);
                statements->push_back("INSERT INTO " + table + " (version, applied_at) VALUES (" +
                                      std::to_string(v + 1) + ", 0)");
            }
            run_in_order(tx, statements, 0, done);
        };
        const std::string select = "SELECT COALESCE(MAX(version), 0) FROM " + table;
        if (!postgres) return tx->query(select, {}, read_version);
        tx->query("LOCK TABLE " + table + " IN EXCLUSIVE MODE", {},
                  [tx, done, select, read_version](store::QueryResult r) {
                      if (!r.is_ok()) return done(r.status());
                      tx->query(select, {}, read_version);
                  });
    });
    return finished.get_future().get();
}

}  // namespace

base::Status apply_migrations(store::Database& db, TransactionRunner& runner, const Migrations& migrations) {
    // Two replicas creating the version table at the same moment can collide on PostgreSQL's catalog: retry.
    base::Status s;
    for (int attempt = 0; attempt < 3; ++attempt) {
        s = migrate_once(db, runner, migrations);
        if (s.is_ok() || s.is_invalid_argument()) return s;
    }
    return s;
}

base::Status migrate_session_schema(store::Database& db, TransactionRunner& runner) {
    static_assert(kSessionSchemaVersion == 3);
    return apply_migrations(db, runner, {"agent_schema_version", "session", migrations()});
}

}  // namespace slipstream::agent::sessions
