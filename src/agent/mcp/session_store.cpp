// SessionStore: portable SQL ($n placeholders adapted per backend) over store::Database.
#include "agent/mcp/session_store.h"

#include <chrono>
#include <optional>
#include <thread>
#include <utility>

#include "agent/mcp/jsonrpc.h"
#include "agent/mcp/protocol.h"
#include "agent/mcp/stop_signals.h"
#include "agent/sessions/database_thread.h"
#include "agent/sessions/session_schema.h"
#include "agent/sessions/sql_text.h"
#include "agent/sessions/transaction_runner.h"
#include "base/arena.h"
#include "json/parse.h"
#include "store/database/database.h"
#include "store/database/db_listener.h"

namespace slipstream::mcp::detail {

namespace sessions = agent::sessions;

namespace {

// Index i brings version i to i + 1. Times are epoch milliseconds; JSON is compact text.
const std::vector<std::vector<const char*>>& migrations() {
    static const std::vector<std::vector<const char*>> kMigrations = {
        {
            "CREATE TABLE mcp_sessions (id TEXT PRIMARY KEY, principal TEXT NOT NULL, version TEXT NOT NULL, "
            "capabilities TEXT NOT NULL, log_level TEXT NOT NULL, subscriptions TEXT NOT NULL, "
            "created_at BIGINT NOT NULL, last_seen BIGINT NOT NULL)",
            "CREATE INDEX mcp_sessions_by_principal ON mcp_sessions (principal, last_seen)",
            "CREATE INDEX mcp_sessions_by_last_seen ON mcp_sessions (last_seen)",
        },
        {
            // Messages between the processes sharing a session: a cancellation or a client's answer that reached
            // another process than the one holding the call (SessionStore::post_signal).
            "CREATE TABLE mcp_signals (id TEXT PRIMARY KEY, session_id TEXT NOT NULL, principal TEXT NOT NULL, "
            "kind TEXT NOT NULL, target TEXT NOT NULL, payload TEXT NOT NULL, created_at BIGINT NOT NULL)",
            "CREATE INDEX mcp_signals_by_created_at ON mcp_signals (created_at)",
        },
        {
            // The events of resumable streams, so a GET with Last-Event-ID resumes a stream on any process
            // (session_store_events.cpp). final: 1 for the stream's last event.
            "CREATE TABLE mcp_events (session_id TEXT NOT NULL, stream TEXT NOT NULL, seq BIGINT NOT NULL, "
            "data TEXT NOT NULL, final INTEGER NOT NULL, created_at BIGINT NOT NULL, "
            "PRIMARY KEY (session_id, stream, seq))",
            "CREATE INDEX mcp_events_by_created_at ON mcp_events (created_at)",
        },
    };
    return kMigrations;
}

SessionStore::Outcome failed(const store::QueryResult& r) {
    return r.is_ok() ? SessionStore::Outcome::kOk : SessionStore::Outcome::kUnavailable;
}

std::int64_t int_cell(const store::ResultSet& rows, std::size_t row, std::size_t col) {
    const std::string text(rows.text(row, col));
    return text.empty() ? 0 : std::stoll(text);
}

}  // namespace

std::int64_t wall_ms() {
    return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
        .count();
}

std::string subscriptions_json(const std::vector<std::string>& uris) {
    std::string out = "[";
    for (std::size_t i = 0; i < uris.size(); ++i) {
        if (i) out += ',';
        out += quote(uris[i]);
    }
    return out + "]";
}

std::optional<std::vector<std::string>> parse_subscriptions(std::string_view text) {
    base::Arena arena;
    auto parsed = json::parse(text, arena);
    if (!parsed.is_ok() || !(*parsed)->is_array()) return std::nullopt;
    std::vector<std::string> out;
    for (const json::Value& v : (*parsed)->items()) {
        if (!v.is_string()) return std::nullopt;
        out.emplace_back(v.as_string());
    }
    return out;
}

base::Result<std::shared_ptr<SessionStore>> SessionStore::open(Options options) {
    store::DatabaseConfig c;
    c.url = options.url;
    const std::int64_t timeout_ns = std::int64_t{options.timeout_ms} * 1'000'000;
    c.min_size = 1;
    c.max_size = std::max<std::uint32_t>(options.connections, 1);
    c.acquire_timeout_ns = timeout_ns;
    c.connect_timeout_ns = timeout_ns;
    c.statement_timeout_ns = timeout_ns;
    std::shared_ptr<store::Database> db;
    {
        BlockStopSignals blocked;
        SLIPSTREAM_ASSIGN_OR_RETURN(std::unique_ptr<store::Database> opened, store::Database::open(std::move(c)));
        db = std::move(opened);
        SLIPSTREAM_ASSIGN_OR_RETURN(std::shared_ptr<sessions::TransactionRunner> runner,
                                    sessions::TransactionRunner::open(db));
        SLIPSTREAM_RETURN_IF_ERROR(
            sessions::apply_migrations(*db, *runner, {"mcp_schema_version", "MCP session", migrations()}));
    }
    return std::shared_ptr<SessionStore>(new SessionStore(std::move(db), std::move(options)));
}

SessionStore::SessionStore(std::shared_ptr<store::Database> db, Options options)
    : db_(std::move(db)), options_(std::move(options)) {}

SessionStore::~SessionStore() {
    // The last reference can be a callback's, on the database's own thread, where the Database's destructor (it
    // joins that thread) must not run.
    if (sessions::on_database_thread()) {
        std::thread([db = std::move(db_)]() mutable {
            sessions::ClosingOnThisThread closing;
            db.reset();
        }).detach();
        return;
    }
    sessions::ClosingOnThisThread closing;
    db_.reset();
}

namespace {

// PostgreSQL: the INSERT in a transaction holding the principal's advisory lock (see SessionStore::insert).
void insert_locked(store::Database& db, std::string sql, store::Params params, const std::string& principal,
                   std::function<void(SessionStore::Outcome)> done) {
    using Outcome = SessionStore::Outcome;
    db.open_session([sql = std::move(sql), params = std::move(params), principal,
                     done = std::move(done)](base::Result<std::unique_ptr<store::DbSession>> opened) mutable {
        sessions::mark_database_thread();
        if (!opened.is_ok()) return done(Outcome::kUnavailable);
        std::shared_ptr<store::DbSession> session = std::move(opened).value();
        // Statements run in order on the held connection; the INSERT's outcome is decided once COMMIT answered (a
        // failed BEGIN or lock fails the INSERT too).
        auto inserted = std::make_shared<std::optional<bool>>();
        session->query("BEGIN", {}, [](store::QueryResult) {});
        session->query("SELECT pg_advisory_xact_lock(hashtextextended($1, 0))", store::Params{principal},
                       [](store::QueryResult) {});
        session->query(std::move(sql), std::move(params), [inserted](store::QueryResult r) {
            if (r.is_ok()) *inserted = r->affected_rows() == 1;
        });
        session->query("COMMIT", {}, [session, inserted, done = std::move(done)](store::QueryResult r) {
            session->close();
            if (!r.is_ok() || !inserted->has_value()) return done(Outcome::kUnavailable);
            done(**inserted ? Outcome::kOk : Outcome::kPrincipalFull);
        });
    });
}

}  // namespace

void SessionStore::insert(const SessionRecord& record, std::function<void(Outcome)> done) {
    const std::int64_t now = wall_ms();
    // The count of the principal's live sessions is read in the INSERT itself: exact on SQLite, whose writes are
    // serialised. On PostgreSQL the INSERT runs in a transaction holding an advisory lock of the principal, so that
    // two creates racing (in any processes) count one after the other: the INSERT's snapshot is taken once the lock
    // is held (READ COMMITTED), after the other's COMMIT.
    std::string sql = sessions::sql_for(
        db_->backend(),
        "INSERT INTO mcp_sessions (id, principal, version, capabilities, log_level, subscriptions, created_at, "
        "last_seen) SELECT $1, $2, $3, $4, $5, $6, $7, $7 WHERE (SELECT COUNT(*) FROM mcp_sessions WHERE "
        "principal = $2 AND last_seen > $8) < $9");
    store::Params params{record.id,
                         record.principal,
                         record.version,
                         record.capabilities,
                         std::string(level_name(record.log_level)),
                         subscriptions_json(record.subscriptions),
                         now,
                         now - std::int64_t{options_.idle_ms},
                         std::int64_t{options_.max_per_principal}};
    if (db_->backend() == store::Backend::kPostgres)
        return insert_locked(*db_, std::move(sql), std::move(params), record.principal, std::move(done));
    db_->query(sql, std::move(params), [done = std::move(done)](store::QueryResult r) {
        sessions::mark_database_thread();
        if (!r.is_ok()) return done(Outcome::kUnavailable);
        done(r->affected_rows() == 1 ? Outcome::kOk : Outcome::kPrincipalFull);
    });
}

void SessionStore::update(const SessionRecord& record, std::function<void(Outcome)> done) {
    const std::int64_t now = wall_ms();
    const std::string sql = sessions::sql_for(db_->backend(),
                                              "UPDATE mcp_sessions SET log_level = $2, subscriptions = $3, "
                                              "last_seen = $4 WHERE id = $1 AND last_seen > $5");
    store::Params params{record.id, std::string(level_name(record.log_level)), subscriptions_json(record.subscriptions),
                         now, now - std::int64_t{options_.idle_ms}};
    db_->query(sql, std::move(params), [done = std::move(done)](store::QueryResult r) {
        sessions::mark_database_thread();
        if (!r.is_ok()) return done(failed(r));
        done(r->affected_rows() == 1 ? Outcome::kOk : Outcome::kNotFound);
    });
}

void SessionStore::load(const std::string& id, std::function<void(Outcome, std::optional<SessionRecord>)> done) {
    const std::string sql =
        sessions::sql_for(db_->backend(),
                          "SELECT principal, version, capabilities, log_level, subscriptions, "
                          "created_at, last_seen FROM mcp_sessions WHERE id = $1 AND last_seen > $2");
    db_->query(
        sql, {id, wall_ms() - std::int64_t{options_.idle_ms}},
        [id, done = std::move(done)](store::QueryResult r) {
            sessions::mark_database_thread();
            if (!r.is_ok()) return done(Outcome::kUnavailable, std::nullopt);
            if (r->row_count() == 0) return done(Outcome::kNotFound, std::nullopt);
            SessionRecord rec;
            rec.id = id;
            rec.principal = std::string(r->text(0, 0));
            rec.version = std::string(r->text(0, 1));
            rec.capabilities = std::string(r->text(0, 2));
            const auto level = parse_level(r->text(0, 3));
            auto subscriptions = parse_subscriptions(r->text(0, 4));
            // A row this build cannot read is no session it can serve.
            if (!level || !subscriptions || !is_supported_version(rec.version))
                return done(Outcome::kNotFound, std::nullopt);
            rec.log_level = *level;
            rec.subscriptions = std::move(*subscriptions);
            rec.created_ms = int_cell(r.value(), 0, 5);
            rec.last_seen_ms = int_cell(r.value(), 0, 6);
            done(Outcome::kOk, std::move(rec));
        },
        -1, true);
}

void SessionStore::touch(const std::string& id, std::function<void()> done) {
    const std::string sql =
        sessions::sql_for(db_->backend(), "UPDATE mcp_sessions SET last_seen = $2 WHERE id = $1 AND last_seen < $2");
    db_->query(sql, {id, wall_ms()}, [done = std::move(done)](store::QueryResult) {
        sessions::mark_database_thread();
        if (done) done();
    });
}

void SessionStore::remove(const std::string& id, const std::string& principal, std::function<void(Outcome)> done) {
    const std::string sql = sessions::sql_for(
        db_->backend(), "DELETE FROM mcp_sessions WHERE id = $1 AND principal = $2 AND last_seen > $3");
    std::weak_ptr<SessionStore> weak = weak_from_this();
    db_->query(sql, {id, principal, wall_ms() - std::int64_t{options_.idle_ms}},
               [weak, id, done = std::move(done)](store::QueryResult r) {
                   sessions::mark_database_thread();
                   if (!r.is_ok()) return done(failed(r));
                   const bool removed = r->affected_rows() > 0;
                   // Its streams' events go with it (no process may resume them any more).
                   if (auto self = weak.lock(); self != nullptr && removed)
                       self->db_->query(
                           sessions::sql_for(self->db_->backend(), "DELETE FROM mcp_events WHERE session_id = $1"),
                           {id}, [](store::QueryResult) { sessions::mark_database_thread(); });
                   done(removed ? Outcome::kOk : Outcome::kNotFound);
               });
}

void SessionStore::remove_if_idle(const std::string& id, std::function<void()> done) {
    const std::string sql =
        sessions::sql_for(db_->backend(), "DELETE FROM mcp_sessions WHERE id = $1 AND last_seen <= $2");
    db_->query(sql, {id, wall_ms() - std::int64_t{options_.idle_ms}}, [done = std::move(done)](store::QueryResult) {
        sessions::mark_database_thread();
        if (done) done();
    });
}

void SessionStore::post_signal(const Signal& signal, std::function<void(Outcome)> done) {
    // PostgreSQL: the same statement NOTIFYs the listeners (delivered at its commit, once the row is visible).
    const std::string sql = sessions::sql_for(
        db_->backend(), db_->backend() == store::Backend::kPostgres
                            ? "WITH s AS (INSERT INTO mcp_signals (id, session_id, principal, kind, target, payload, "
                              "created_at) VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING id) "
                              "SELECT pg_notify('mcp_signals', id) FROM s"
                            : "INSERT INTO mcp_signals (id, session_id, principal, kind, target, payload, "
                              "created_at) VALUES ($1, $2, $3, $4, $5, $6, $7)");
    db_->query(sql,
               {signal.id, signal.session_id, signal.principal, signal.kind, signal.target, signal.payload, wall_ms()},
               [done = std::move(done)](store::QueryResult r) {
                   sessions::mark_database_thread();
                   if (done) done(failed(r));
               });
}

bool SessionStore::watch_signals(std::function<void()> on_signal) {
    if (db_->backend() != store::Backend::kPostgres) return false;
    store::ListenerHandlers handlers;
    handlers.on_notification = [on_signal, on_event = on_event_](const store::DbNotification& n) {
        if (n.channel != "mcp_events") return on_signal();
        if (on_event) on_event();
    };
    handlers.on_event = [on_signal, on_event = on_event_](store::ListenerEvent event, const base::Status&) {
        if (event != store::ListenerEvent::kReconnected) return;
        on_signal();
        if (on_event) on_event();
    };
    const bool events = static_cast<bool>(on_event_);
    auto slot = std::make_shared<std::shared_ptr<store::DbListener>>();
    std::weak_ptr<SessionStore> weak = weak_from_this();
    db_->open_listener(std::move(handlers), [weak, events](base::Result<std::unique_ptr<store::DbListener>> opened) {
        sessions::mark_database_thread();
        auto self = weak.lock();
        if (self == nullptr || !opened.is_ok()) return;  // the periodic read still runs
        std::shared_ptr<store::DbListener> listener = std::move(opened).value();
        listener->listen("mcp_signals", [](base::Status) {});
        if (events) listener->listen("mcp_events", [](base::Status) {});
        self->listener_ = std::move(listener);
    });
    return true;
}

void SessionStore::signals_since(std::int64_t since_ms, std::size_t limit,
                                 std::function<void(Outcome, std::vector<Signal>)> done) {
    const std::string sql = sessions::sql_for(db_->backend(),
                                              "SELECT id, session_id, principal, kind, target, payload, created_at "
                                              "FROM mcp_signals WHERE created_at >= $1 ORDER BY created_at LIMIT $2");
    db_->query(sql, {since_ms, static_cast<std::int64_t>(limit)}, [done = std::move(done)](store::QueryResult r) {
        sessions::mark_database_thread();
        if (!r.is_ok()) return done(Outcome::kUnavailable, {});
        std::vector<Signal> out;
        out.reserve(r->row_count());
        for (std::size_t i = 0; i < r->row_count(); ++i)
            out.push_back(Signal{std::string(r->text(i, 0)), std::string(r->text(i, 1)), std::string(r->text(i, 2)),
                                 std::string(r->text(i, 3)), std::string(r->text(i, 4)), std::string(r->text(i, 5)),
                                 int_cell(r.value(), i, 6)});
        done(Outcome::kOk, std::move(out));
    });
}

void SessionStore::sweep(std::size_t batch, std::function<void(std::int64_t)> done) {
    // Signals are read within a few poll periods: a minute old, they are gone.
    db_->query(sessions::sql_for(db_->backend(), "DELETE FROM mcp_signals WHERE created_at <= $1"),
               {wall_ms() - kSignalLifeMs}, [](store::QueryResult) { sessions::mark_database_thread(); });
    db_->query(sessions::sql_for(db_->backend(), "DELETE FROM mcp_events WHERE created_at <= $1"),
               {wall_ms() - std::int64_t{options_.event_ttl_ms}},
               [](store::QueryResult) { sessions::mark_database_thread(); });
    const std::string sql =
        sessions::sql_for(db_->backend(),
                          "DELETE FROM mcp_sessions WHERE id IN (SELECT id FROM mcp_sessions WHERE last_seen <= $1 "
                          "LIMIT $2)");
    db_->query(sql, {wall_ms() - std::int64_t{options_.idle_ms}, static_cast<std::int64_t>(batch)},
               [done = std::move(done)](store::QueryResult r) {
                   sessions::mark_database_thread();
                   if (done) done(r.is_ok() ? r->affected_rows() : -1);
               });
}

}  // namespace slipstream::mcp::detail
