// migrate_decide_schema(): portable DDL (TEXT, BIGINT, DOUBLE PRECISION), IF NOT EXISTS so that a rerun is harmless.
#include "agent/decide/decide_schema.h"

#include <future>
#include <string>

namespace slipstream::agent::decide {

namespace {

// Times are epoch milliseconds; JSON is kept as compact text. A decision's seed is its decimal text (64 bits
// do not fit BIGINT). decide_updates is the learning log: the model is its latest snapshot plus the updates
// after the snapshot's seq, replayed in seq order.
constexpr const char* kStatements[] = {
    "CREATE TABLE IF NOT EXISTS decide_schema_version (version BIGINT PRIMARY KEY)",
    "CREATE TABLE IF NOT EXISTS decide_capsules (tenant TEXT NOT NULL, job TEXT NOT NULL, name TEXT NOT NULL, "
    "spec TEXT NOT NULL, spec_version BIGINT NOT NULL, generation BIGINT NOT NULL, updates BIGINT NOT NULL, "
    "created_at BIGINT NOT NULL, updated_at BIGINT NOT NULL, PRIMARY KEY (tenant, job, name))",
    "CREATE TABLE IF NOT EXISTS decide_specs (tenant TEXT NOT NULL, job TEXT NOT NULL, name TEXT NOT NULL, "
    "version BIGINT NOT NULL, spec TEXT NOT NULL, principal TEXT NOT NULL, created_at BIGINT NOT NULL, "
    "PRIMARY KEY (tenant, job, name, version))",
    "CREATE TABLE IF NOT EXISTS decide_decisions (id TEXT PRIMARY KEY, tenant TEXT NOT NULL, job TEXT NOT NULL, "
    "name TEXT NOT NULL, event_id TEXT, request_hash TEXT NOT NULL, principal TEXT NOT NULL, "
    "generation BIGINT NOT NULL, action_index BIGINT NOT NULL, context TEXT NOT NULL, answer TEXT NOT NULL, "
    "created_at BIGINT NOT NULL, deadline_at BIGINT NOT NULL, closed BIGINT NOT NULL, reward_total DOUBLE "
    "PRECISION NOT NULL, reward_count BIGINT NOT NULL, reward DOUBLE PRECISION, actions TEXT)",
    // Partial indexes: most decisions have no eventId, and only open ones wait for the sweeper; rows outside them
    // cost nothing there (the shadow writer inserts tens of thousands a second).
    "CREATE UNIQUE INDEX IF NOT EXISTS decide_decisions_by_event ON decide_decisions (tenant, job, name, event_id) "
    "WHERE event_id IS NOT NULL",
    "CREATE INDEX IF NOT EXISTS decide_decisions_by_time ON decide_decisions (tenant, job, name, created_at, id)",
    "CREATE INDEX IF NOT EXISTS decide_decisions_open ON decide_decisions (deadline_at) WHERE closed = 0",
    "CREATE TABLE IF NOT EXISTS decide_rewards (decision_id TEXT NOT NULL, reward_key TEXT NOT NULL, "
    "value DOUBLE PRECISION NOT NULL, body TEXT NOT NULL, principal TEXT NOT NULL, created_at BIGINT NOT NULL, "
    "PRIMARY KEY (decision_id, reward_key))",
    "CREATE TABLE IF NOT EXISTS decide_updates (tenant TEXT NOT NULL, job TEXT NOT NULL, name TEXT NOT NULL, "
    "seq BIGINT NOT NULL, generation BIGINT NOT NULL, decision_id TEXT NOT NULL, reward DOUBLE PRECISION NOT NULL, "
    "PRIMARY KEY (tenant, job, name, seq))",
    "CREATE TABLE IF NOT EXISTS decide_snapshots (tenant TEXT NOT NULL, job TEXT NOT NULL, name TEXT NOT NULL, "
    "generation BIGINT NOT NULL, seq BIGINT NOT NULL, model TEXT NOT NULL, created_at BIGINT NOT NULL, "
    "PRIMARY KEY (tenant, job, name, generation, seq))",
};

base::Result<store::ResultSet> run_blocking(store::Database& db, const std::string& sql) {
    std::promise<store::QueryResult> done;
    (void)db.query(sql, {}, [&done](store::QueryResult r) { done.set_value(std::move(r)); });
    store::QueryResult r = done.get_future().get();
    if (!r.is_ok()) return r.status();
    return std::move(r).value();
}

base::Status migrate_once(store::Database& db) {
    for (const char* sql : kStatements) {
        base::Result<store::ResultSet> r = run_blocking(db, sql);
        if (!r.is_ok()) return r.status();
    }
    base::Result<store::ResultSet> current =
        run_blocking(db, "SELECT COALESCE(MAX(version), 0) FROM decide_schema_version");
    if (!current.is_ok()) return current.status();
    const std::string text(current->text(0, 0));
    const std::int64_t version = text.empty() ? 0 : std::stoll(text);
    if (version > kDecideSchemaVersion)
        return base::Status::invalid_argument("the database's decision schema is version " + std::to_string(version) +
                                              ", newer than this server's " + std::to_string(kDecideSchemaVersion));
    if (version == kDecideSchemaVersion) return base::Status::ok();
    if (version == 1) {
        // Version 2: the action features a request gave (NULL: the spec's).
        base::Result<store::ResultSet> added = run_blocking(db, "ALTER TABLE decide_decisions ADD COLUMN actions TEXT");
        if (!added.is_ok()) return added.status();
    }
    base::Result<store::ResultSet> recorded = run_blocking(
        db, "INSERT INTO decide_schema_version (version) VALUES (" + std::to_string(kDecideSchemaVersion) + ")");
    return recorded.status();
}

}  // namespace

base::Status migrate_decide_schema(store::Database& db) {
    // Replicas creating the tables at the same moment can collide on PostgreSQL's catalog: retry.
    base::Status s;
    for (int attempt = 0; attempt < 3; ++attempt) {
        s = migrate_once(db);
        if (s.is_ok() || s.is_invalid_argument()) return s;
    }
    return s;
}

}  // namespace slipstream::agent::decide
