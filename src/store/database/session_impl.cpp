// SessionImpl: statements on a held connection, and giving it back.
#include "store/database/session_impl.h"

#include <sqlite3.h>

#include "store/database/database_impl.h"

namespace slipstream::store {

namespace {
base::Status closed_status() {
    return base::Status::cancelled("database session closed");
}
}  // namespace

std::shared_ptr<SessionImpl> SessionImpl::over_lease(std::shared_ptr<DatabaseImpl> db, postgres::Lease lease) {
    return std::make_shared<SessionImpl>(std::move(db), std::move(lease));
}

base::Result<std::shared_ptr<SessionImpl>> SessionImpl::open_sqlite(std::shared_ptr<DatabaseImpl> db,
                                                                    const sqlite::DatabaseOptions& options) {
    SLIPSTREAM_ASSIGN_OR_RETURN(auto connection, sqlite::open_connection(options));
    return std::make_shared<SessionImpl>(std::move(db), std::move(connection));
}

SessionImpl::SessionImpl(std::shared_ptr<DatabaseImpl> db, postgres::Lease lease)
    : db_(std::move(db)), lease_(std::move(lease)) {}

SessionImpl::SessionImpl(std::shared_ptr<DatabaseImpl> db, std::unique_ptr<sqlite::Session> connection)
    : db_(std::move(db)),
      sqlite_(std::move(connection)),
      worker_(
          std::make_unique<WorkerPool>(WorkerPoolOptions{.threads = 1, .max_queue = 4096, .name = "ss-sqlite-tx"})) {}

SessionImpl::~SessionImpl() {
    if (sqlite_) {
        close();
        worker_.reset();  // runs what is queued (the rollback included), then joins
    }
    // PostgreSQL: the last reference is dropped on the loop thread (every task holding one runs there), so the
    // lease, if still held, goes back to the pool on its own thread.
}

bool SessionImpl::on_worker(std::function<void()> job) {
    if (closed_.load()) return false;
    return worker_->submit([job = std::move(job)](std::size_t) { job(); }).is_ok();
}

template <typename Result, typename OnSqlite, typename OnPostgres>
void SessionImpl::run(std::string sql, Params params, std::function<void(Result)> done, std::int64_t timeout_ns,
                      OnSqlite on_sqlite, OnPostgres on_postgres) {
    if (sqlite_) {
        bool queued = on_worker([this, sql = std::move(sql), params = std::move(params), done, on_sqlite] {
            auto result = std::make_shared<Result>(on_sqlite(*sqlite_, sql, params));
            if (!db_->post([done, result] { done(std::move(*result)); })) done(std::move(*result));
        });
        if (!queued) done(closed_status());
        return;
    }
    auto task = [self = shared_from_this(), sql = std::move(sql), params = std::move(params), done, timeout_ns,
                 on_postgres]() mutable {
        if (!self->lease_) return done(closed_status());
        DatabaseImpl* db = self->db_.get();
        on_postgres(
            *self->lease_, std::move(sql), std::move(params),
            [db, done](Result r) {
                db->observe(r.status(), r.error());
                done(std::move(r));
            },
            db->statement_options(timeout_ns));
    };
    if (closed_.load() || !db_->post(std::move(task))) done(closed_status());
}

void SessionImpl::query(std::string sql, Params params, DbSession::QueryCallback done, std::int64_t timeout_ns) {
    run<QueryResult>(
        std::move(sql), std::move(params), std::move(done), timeout_ns,
        [](sqlite::Session& s, const std::string& q, const Params& p) { return s.query(q, p); },
        [](postgres::Connection& c, std::string q, Params p, postgres::Connection::QueryCallback cb,
           postgres::QueryOptions o) { c.query(std::move(q), std::move(p), std::move(cb), o); });
}

void SessionImpl::fetch_json(std::string sql, Params params, DbSession::JsonCallback done, std::int64_t timeout_ns) {
    run<JsonResult>(
        std::move(sql), std::move(params), std::move(done), timeout_ns,
        [](sqlite::Session& s, const std::string& q, const Params& p) { return s.fetch_json(q, p); },
        [](postgres::Connection& c, std::string q, Params p, postgres::Connection::JsonCallback cb,
           postgres::QueryOptions o) { c.fetch_json(std::move(q), std::move(p), std::move(cb), o); });
}

void SessionImpl::set_notification_handler(std::function<void(const DbNotification&)> handler) {
    if (sqlite_) return;  // LISTEN/NOTIFY is PostgreSQL's
    db_->post([self = shared_from_this(), handler = std::move(handler)]() mutable {
        if (!self->lease_) return;
        self->listening_ = handler != nullptr;
        if (!handler) return self->lease_->set_notification_handler(nullptr);
        self->lease_->set_notification_handler([handler = std::move(handler)](const postgres::Notification& n) {
            handler(DbNotification{n.channel, n.payload, n.sender_pid});
        });
    });
}

void SessionImpl::close() {
    if (closed_.exchange(true)) return;
    if (sqlite_) {
        // Queued behind the statements already called; a transaction left open is rolled back.
        worker_
            ->submit([this](std::size_t) {
                if (sqlite3_get_autocommit(sqlite_->handle()) == 0)
                    sqlite_->query("ROLLBACK", {}).status().ignore_error();
            })
            .ignore_error();
        db_->release_session_slot();
        return;
    }
    db_->post([self = shared_from_this()] {
        if (!self->lease_) return;
        if (!self->listening_) return self->close_on_loop();
        // A LISTEN must not outlive the session on a pooled connection.
        self->lease_->set_notification_handler(nullptr);
        self->lease_->query("UNLISTEN *", {}, [self](QueryResult) { self->close_on_loop(); });
    });
}

void SessionImpl::close_on_loop() {
    if (!lease_) return;
    closed_.store(true);
    lease_.reset();  // rolled back first when left inside a transaction
    db_->forget_session(this);
}

// ---- DbSession ----

DbSession::~DbSession() {
    if (impl_) impl_->close();
}

void DbSession::query(std::string sql, Params params, QueryCallback done, std::int64_t timeout_ns) {
    impl_->query(std::move(sql), std::move(params), std::move(done), timeout_ns);
}

void DbSession::fetch_json(std::string sql, Params params, JsonCallback done, std::int64_t timeout_ns) {
    impl_->fetch_json(std::move(sql), std::move(params), std::move(done), timeout_ns);
}

void DbSession::set_notification_handler(std::function<void(const DbNotification&)> handler) {
    impl_->set_notification_handler(std::move(handler));
}

void DbSession::close() {
    impl_->close();
}

}  // namespace slipstream::store
