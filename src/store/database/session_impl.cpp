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
std::shared_ptr<QueryCancel> SessionImpl::run(std::string sql, Params params, std::function<void(Result)> done,
                                              std::int64_t timeout_ns, OnSqlite on_sqlite, OnPostgres on_postgres) {
    auto handle = std::make_shared<QueryCancel>(db_);
    if (sqlite_) {
        auto interrupt = std::make_shared<sqlite::Interrupt>();
        auto once = DatabaseImpl::sqlite_cancellable<Result>(std::move(done), handle, interrupt);
        bool queued =
            on_worker([this, sql = std::move(sql), params = std::move(params), once, on_sqlite, interrupt]() mutable {
                std::shared_ptr<Result> result;
                if (interrupt->begin(sqlite_->handle())) {
                    result = std::make_shared<Result>(on_sqlite(*sqlite_, sql, params));
                    interrupt->end();
                } else {
                    result = std::make_shared<Result>(cancelled_by_client());
                }
                if (!db_->post([once, result] { once(std::move(*result)); })) once(std::move(*result));
            });
        if (!queued) once(closed_status());
        return handle;
    }
    auto task = [self = shared_from_this(), sql = std::move(sql), params = std::move(params), done, timeout_ns, handle,
                 on_postgres]() mutable {
        if (!self->lease_) return done(closed_status());
        if (handle->requested()) return done(cancelled_by_client());
        DatabaseImpl* db = self->db_.get();
        postgres::Connection::StatementId id = on_postgres(
            *self->lease_, std::move(sql), std::move(params),
            [db, done](Result r) {
                db->observe(r.status(), r.error());
                done(std::move(r));
            },
            db->statement_options(timeout_ns));
        // A queued statement leaves the queue, a running one is cancelled on the server (Connection::cancel).
        DatabaseImpl::set_stop(*handle, [weak = std::weak_ptr<SessionImpl>(self), id] {
            auto session = weak.lock();
            if (session && session->lease_) session->lease_->cancel(id);
        });
    };
    if (closed_.load() || !db_->post(std::move(task))) done(closed_status());
    return handle;
}

std::shared_ptr<QueryCancel> SessionImpl::query(std::string sql, Params params, DbSession::QueryCallback done,
                                                std::int64_t timeout_ns) {
    return run<QueryResult>(
        std::move(sql), std::move(params), std::move(done), timeout_ns,
        [](sqlite::Session& s, const std::string& q, const Params& p) { return s.query(q, p); },
        [](postgres::Connection& c, std::string q, Params p, postgres::Connection::QueryCallback cb,
           postgres::QueryOptions o) { return c.query(std::move(q), std::move(p), std::move(cb), o); });
}

std::shared_ptr<QueryCancel> SessionImpl::fetch_json(std::string sql, Params params, DbSession::JsonCallback done,
                                                     std::int64_t timeout_ns) {
    return run<JsonResult>(
        std::move(sql), std::move(params), std::move(done), timeout_ns,
        [](sqlite::Session& s, const std::string& q, const Params& p) { return s.fetch_json(q, p); },
        [](postgres::Connection& c, std::string q, Params p, postgres::Connection::JsonCallback cb,
           postgres::QueryOptions o) { return c.fetch_json(std::move(q), std::move(p), std::move(cb), o); });
}

namespace {
CopyCount copy_on_sqlite(sqlite::Session&, const std::string&, const Params&) {
    return base::Status::invalid_argument("COPY is PostgreSQL's; SQLite takes INSERT statements");
}
}  // namespace

std::shared_ptr<QueryCancel> SessionImpl::copy_in(std::string copy_sql, postgres::CopySource source,
                                                  std::function<void(CopyCount)> done, std::int64_t timeout_ns) {
    return run<CopyCount>(std::move(copy_sql), {}, std::move(done), timeout_ns, copy_on_sqlite,
                          [source = std::move(source)](postgres::Connection& c, std::string q, Params,
                                                       postgres::CopyCallback cb, postgres::QueryOptions o) mutable {
                              return c.copy_in(std::move(q), std::move(source), std::move(cb), o);
                          });
}

std::shared_ptr<QueryCancel> SessionImpl::copy_out(std::string copy_sql, CopyOutSink sink,
                                                   std::function<void(CopyCount)> done, std::int64_t timeout_ns) {
    return run<CopyCount>(std::move(copy_sql), {}, std::move(done), timeout_ns, copy_on_sqlite,
                          [sink = std::move(sink)](postgres::Connection& c, std::string q, Params,
                                                   postgres::CopyCallback cb, postgres::QueryOptions o) mutable {
                              return c.copy_out(std::move(q), std::move(sink), std::move(cb), o);
                          });
}

std::shared_ptr<QueryCancel> SessionImpl::copy_out_stream(std::string copy_sql, std::shared_ptr<CopyOutStream> stream,
                                                          std::function<void(CopyCount)> done,
                                                          std::int64_t timeout_ns) {
    auto finished = [stream, done = std::move(done)](CopyCount r) {
        done(std::move(r));
        stream->end();
    };
    return run<CopyCount>(
        std::move(copy_sql), {}, std::move(finished), timeout_ns, copy_on_sqlite,
        [stream, weak = std::weak_ptr<SessionImpl>(shared_from_this()), db = std::weak_ptr<DatabaseImpl>(db_)](
            postgres::Connection& c, std::string q, Params, postgres::CopyCallback cb, postgres::QueryOptions o) {
            postgres::Connection::StatementId id = c.copy_out(
                std::move(q), [stream](std::string_view data) { return stream->offer(data); }, std::move(cb), o);
            stream->set_resume(resume_later(weak, db, id));
            return id;
        });
}

std::shared_ptr<QueryCancel> SessionImpl::copy_in_stream(std::string copy_sql, std::shared_ptr<CopyStream> stream,
                                                         std::function<void(CopyCount)> done, std::int64_t timeout_ns) {
    auto finished = [stream, done = std::move(done)](CopyCount r) {
        done(std::move(r));
        stream->close();
    };
    return run<CopyCount>(
        std::move(copy_sql), {}, std::move(finished), timeout_ns, copy_on_sqlite,
        [stream, weak = std::weak_ptr<SessionImpl>(shared_from_this()), db = std::weak_ptr<DatabaseImpl>(db_)](
            postgres::Connection& c, std::string q, Params, postgres::CopyCallback cb, postgres::QueryOptions o) {
            postgres::Connection::StatementId id = c.copy_in(
                std::move(q), [stream](std::string& out) { return stream->pull(out); }, std::move(cb), o);
            stream->set_wake(resume_later(weak, db, id));
            return id;
        });
}

std::function<void()> SessionImpl::resume_later(std::weak_ptr<SessionImpl> session, std::weak_ptr<DatabaseImpl> db,
                                                postgres::Connection::StatementId id) {
    return [session = std::move(session), db = std::move(db), id] {
        if (auto d = db.lock()) {
            d->post([session, id] {
                auto s = session.lock();
                if (s && s->lease_) s->lease_->resume_copy(id);
            });
        }
    };
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

namespace {
// The session's connection as SyncStatements, for work on its thread.
class SqliteStatements final : public SyncStatements {
  public:
    explicit SqliteStatements(sqlite::Session& connection) : connection_(connection) {}
    QueryResult query(std::string_view sql, const Params& params) override { return connection_.query(sql, params); }

  private:
    sqlite::Session& connection_;
};
}  // namespace

void SessionImpl::run_on_thread(std::function<void(SyncStatements*)> work) {
    if (!sqlite_) return work(nullptr);
    auto shared = std::make_shared<std::function<void(SyncStatements*)>>(std::move(work));
    bool queued = on_worker([this, shared] {
        SqliteStatements statements(*sqlite_);
        (*shared)(&statements);
    });
    if (!queued) (*shared)(nullptr);
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

std::shared_ptr<QueryCancel> DbSession::query(std::string sql, Params params, QueryCallback done,
                                              std::int64_t timeout_ns) {
    return impl_->query(std::move(sql), std::move(params), std::move(done), timeout_ns);
}

std::shared_ptr<QueryCancel> DbSession::fetch_json(std::string sql, Params params, JsonCallback done,
                                                   std::int64_t timeout_ns) {
    return impl_->fetch_json(std::move(sql), std::move(params), std::move(done), timeout_ns);
}

std::shared_ptr<QueryCancel> DbSession::copy_in(std::string copy_sql, std::vector<std::vector<Value>> rows,
                                                std::function<void(CopyCount)> done, std::int64_t timeout_ns) {
    return impl_->copy_in(std::move(copy_sql), postgres::copy_rows(std::move(rows)), std::move(done), timeout_ns);
}

std::shared_ptr<QueryCancel> DbSession::copy_in_data(std::string copy_sql, std::string data,
                                                     std::function<void(CopyCount)> done, std::int64_t timeout_ns) {
    return impl_->copy_in(std::move(copy_sql), postgres::copy_bytes(std::move(data)), std::move(done), timeout_ns);
}

std::shared_ptr<QueryCancel> DbSession::copy_out(std::string copy_sql, CopyOutSink sink,
                                                 std::function<void(CopyCount)> done, std::int64_t timeout_ns) {
    return impl_->copy_out(std::move(copy_sql), std::move(sink), std::move(done), timeout_ns);
}

std::shared_ptr<QueryCancel> DbSession::copy_in_stream(std::string copy_sql, std::shared_ptr<CopyStream> stream,
                                                       std::function<void(CopyCount)> done, std::int64_t timeout_ns) {
    return impl_->copy_in_stream(std::move(copy_sql), std::move(stream), std::move(done), timeout_ns);
}

std::shared_ptr<QueryCancel> DbSession::copy_out_stream(std::string copy_sql, std::shared_ptr<CopyOutStream> stream,
                                                        std::function<void(CopyCount)> done, std::int64_t timeout_ns) {
    return impl_->copy_out_stream(std::move(copy_sql), std::move(stream), std::move(done), timeout_ns);
}

void DbSession::set_notification_handler(std::function<void(const DbNotification&)> handler) {
    impl_->set_notification_handler(std::move(handler));
}

void DbSession::run_on_thread(std::function<void(SyncStatements*)> work) {
    impl_->run_on_thread(std::move(work));
}

void DbSession::close() {
    impl_->close();
}

}  // namespace slipstream::store
