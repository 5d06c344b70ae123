// Database: the thread that runs the store's loop, the backend behind it, readiness, and held sessions.
#include "store/database/database.h"

#include <algorithm>
#include <utility>

#include "store/database/database_impl.h"
#include "store/database/listener_impl.h"
#include "store/database/session_impl.h"

namespace slipstream::store {

namespace {
constexpr std::int64_t kProbeIntervalNs = 1'000'000'000;
constexpr std::size_t kMaxSqliteThreads = 8;

bool starts_with(std::string_view s, std::string_view prefix) {
    return s.substr(0, prefix.size()) == prefix;
}

// A statement outcome that says the server could not be reached (as opposed to an error in the statement).
bool unreachable(const base::Status& status, const DbError& error) {
    return error.connection_lost || (error.sqlstate.empty() && status.code() == base::StatusCode::kUnavailable);
}
}  // namespace

base::Result<DatabaseTarget> parse_database_url(std::string_view url) {
    if (starts_with(url, "postgresql://") || starts_with(url, "postgres://"))
        return DatabaseTarget{Backend::kPostgres, std::string(url)};
    if (starts_with(url, "postgresql:")) return DatabaseTarget{Backend::kPostgres, std::string(url.substr(11))};
    if (starts_with(url, "sqlite://")) {
        std::string_view rest = url.substr(9);
        if (rest.empty() || rest == ":memory:" || rest == "/:memory:")
            return DatabaseTarget{Backend::kSqlite, ":memory:"};
        return DatabaseTarget{Backend::kSqlite, std::string(rest)};  // "/abs/path" or "relative/path"
    }
    return base::Status::invalid_argument("database URL must start with postgresql://, postgres:// or sqlite://");
}

// ---- QueryCancel ----

void QueryCancel::cancel() {
    if (requested_.exchange(true)) return;
    std::shared_ptr<DatabaseImpl> db = db_.lock();
    // Posted after the statement's own task (FIFO): that one has set stop_, or seen requested_ and not started.
    if (db) db->post([self = shared_from_this()] { DatabaseImpl::run_cancel(*self); });
}

// ---- DatabaseImpl ----

base::Status cancelled_by_client() {
    return base::Status::cancelled("statement cancelled by the client");
}

void DatabaseImpl::run_cancel(QueryCancel& handle) {
    std::function<void()> stop = std::move(handle.stop_);
    handle.stop_ = nullptr;
    if (stop) stop();
}

void DatabaseImpl::on_pool(QueryCancel& handle, std::shared_ptr<postgres::StatementCancel> pool_handle) {
    handle.stop_ = [pool_handle = std::move(pool_handle)] { pool_handle->cancel(); };
}

template <typename R>
std::function<void(R)> DatabaseImpl::sqlite_cancellable(std::function<void(R)> done,
                                                        const std::shared_ptr<QueryCancel>& handle,
                                                        std::shared_ptr<sqlite::Interrupt> interrupt) {
    // Both run on the loop thread: the worker's answer (posted) and the cancel (posted). The first one counts.
    auto answered = std::make_shared<bool>(false);
    std::function<void(R)> once = [answered, done = std::move(done), weak = std::weak_ptr<QueryCancel>(handle)](R r) {
        if (*answered) return;
        *answered = true;
        if (auto h = weak.lock()) h->stop_ = nullptr;  // drops `done`, which may own what holds the handle
        done(std::move(r));
    };
    handle->stop_ = [interrupt = std::move(interrupt), once] {
        interrupt->cancel();
        once(R(cancelled_by_client()));
    };
    return once;
}
template std::function<void(QueryResult)> DatabaseImpl::sqlite_cancellable<QueryResult>(
    std::function<void(QueryResult)>, const std::shared_ptr<QueryCancel>&, std::shared_ptr<sqlite::Interrupt>);
template std::function<void(JsonResult)> DatabaseImpl::sqlite_cancellable<JsonResult>(
    std::function<void(JsonResult)>, const std::shared_ptr<QueryCancel>&, std::shared_ptr<sqlite::Interrupt>);
template std::function<void(CopyCount)> DatabaseImpl::sqlite_cancellable<CopyCount>(std::function<void(CopyCount)>,
                                                                                    const std::shared_ptr<QueryCancel>&,
                                                                                    std::shared_ptr<sqlite::Interrupt>);

DatabaseImpl::DatabaseImpl(DatabaseConfig config, DatabaseTarget target)
    : config_(std::move(config)), target_(std::move(target)), loop_(std::make_unique<net::EventLoop>(clock_)) {}

DatabaseImpl::~DatabaseImpl() = default;

bool DatabaseImpl::post(net::Task task) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (stopped_) return false;
    loop_->post(std::move(task));
    return true;
}

base::Status DatabaseImpl::start() {
    if (target_.backend == Backend::kSqlite) {
        sqlite::DatabaseOptions o;
        o.path = target_.location;
        o.threads = std::min(std::max<std::size_t>(config_.max_size, 1), kMaxSqliteThreads);
        SLIPSTREAM_ASSIGN_OR_RETURN(sqlite_, sqlite::Database::open(std::move(o)));
        ready_.store(true);
    } else {
        cancel_workers_ = std::make_unique<WorkerPool>(WorkerPoolOptions{.threads = 1, .name = "ss-pg-cancel"});
    }
    thread_ = std::thread([this] {
        loop_->run();
        // Stopped: what is still in flight was answered by the pool's destructor (kCancelled).
    });
    if (target_.backend == Backend::kPostgres) {
        post([this] {
            postgres::PoolOptions o;
            o.conninfo = target_.location;
            o.min_size = config_.min_size;
            o.max_size = config_.max_size;
            o.acquire_timeout_ns = config_.acquire_timeout_ns;
            o.connect_timeout_ns = config_.connect_timeout_ns;
            o.max_prepared = config_.statement_cache_size;
            pool_ = std::make_unique<postgres::Pool>(*loop_, std::move(o), cancel_workers_.get());
            probe();
        });
    }
    return base::Status::ok();
}

void DatabaseImpl::stop() {
    {
        std::lock_guard<std::mutex> lock(mutex_);
        if (stopped_ || !thread_.joinable()) {
            stopped_ = true;
            return;
        }
        loop_->post([this] {
            probe_timer_.cancel();
            auto held = std::move(sessions_);
            sessions_.clear();
            for (auto& entry : held)
                entry.second->close_on_loop();  // leases go back before the pool goes
            std::vector<std::shared_ptr<ListenerImpl>> listening;
            for (auto& entry : listeners_)
                listening.push_back(entry.second);
            for (auto& listener : listening)
                listener->close_on_loop();  // each forgets itself
            pool_.reset();                  // waiters and queued statements hear kCancelled
            loop_->stop();
        });
        stopped_ = true;
    }
    thread_.join();
    sqlite_.reset();  // runs what is queued (answers to a stopped loop are dropped), then closes
    cancel_workers_.reset();
}

void DatabaseImpl::observe(const base::Status& status, const DbError& error) {
    if (status.is_ok() || (!error.sqlstate.empty() && !error.connection_lost)) {  // the server answered
        ready_.store(true, std::memory_order_relaxed);
        last_answer_ = loop_->now();
    } else if (unreachable(status, error)) {
        ready_.store(false, std::memory_order_relaxed);
        if (!probe_timer_.scheduled()) loop_->schedule_after(probe_timer_, kProbeIntervalNs);
    }
}

void DatabaseImpl::probe() {
    // Every second without an answer from the server (a pool drops a broken idle connection silently, so an idle
    // app learns of an outage only by asking): SELECT 1, then again a second after its answer.
    probe_timer_.set_callback([this] { probe(); });
    if (!pool_) return;
    if (ready() && loop_->now() - last_answer_ < kProbeIntervalNs) {
        loop_->schedule_after(probe_timer_, kProbeIntervalNs);
        return;
    }
    pool_->query(
        "SELECT 1", {},
        [this](QueryResult r) {
            observe(r.status(), r.error());
            if (!probe_timer_.scheduled()) loop_->schedule_after(probe_timer_, kProbeIntervalNs);
        },
        postgres::QueryOptions{.timeout_ns = config_.connect_timeout_ns, .idempotent = true});
}

std::int64_t DatabaseImpl::timeout(std::int64_t asked) const {
    return asked < 0 ? config_.statement_timeout_ns : asked;
}

template <typename Result, typename OnSqlite, typename OnPool>
void DatabaseImpl::statement(std::string sql, Params params, std::function<void(Result)> done, std::int64_t timeout_ns,
                             bool idempotent, const std::shared_ptr<QueryCancel>& handle, OnSqlite on_sqlite,
                             OnPool on_pool_call) {
    if (sqlite_) {
        auto interrupt = std::make_shared<sqlite::Interrupt>();
        on_sqlite(*sqlite_, *loop_, std::move(sql), std::move(params),
                  sqlite_cancellable<Result>(std::move(done), handle, interrupt), interrupt);
        return;
    }
    auto task = [this, sql = std::move(sql), params = std::move(params), done, timeout_ns, idempotent, handle,
                 on_pool_call]() mutable {
        if (!pool_) return done(base::Status::cancelled("database closed"));
        if (handle->requested()) return done(cancelled_by_client());
        on_pool(*handle, on_pool_call(
                             *pool_, std::move(sql), std::move(params),
                             [this, done](Result r) {
                                 observe(r.status(), r.error());
                                 done(std::move(r));
                             },
                             statement_options(timeout_ns, idempotent)));
    };
    if (!post(std::move(task))) done(base::Status::cancelled("database closed"));
}

void DatabaseImpl::query(std::string sql, Params params, Database::QueryCallback done, std::int64_t timeout_ns,
                         bool idempotent, const std::shared_ptr<QueryCancel>& handle) {
    statement<QueryResult>(
        std::move(sql), std::move(params), std::move(done), timeout_ns, idempotent, handle,
        [](sqlite::Database& db, net::EventLoop& loop, std::string q, Params p, Database::QueryCallback cb,
           std::shared_ptr<sqlite::Interrupt> interrupt) {
            db.query(loop, std::move(q), std::move(p), std::move(cb), std::move(interrupt));
        },
        [](postgres::Pool& pool, std::string q, Params p, postgres::Connection::QueryCallback cb,
           postgres::QueryOptions o) { return pool.query(std::move(q), std::move(p), std::move(cb), o); });
}

void DatabaseImpl::fetch_json(std::string sql, Params params, Database::JsonCallback done, std::int64_t timeout_ns,
                              bool idempotent, const std::shared_ptr<QueryCancel>& handle) {
    statement<JsonResult>(
        std::move(sql), std::move(params), std::move(done), timeout_ns, idempotent, handle,
        [](sqlite::Database& db, net::EventLoop& loop, std::string q, Params p, Database::JsonCallback cb,
           std::shared_ptr<sqlite::Interrupt> interrupt) {
            db.fetch_json(loop, std::move(q), std::move(p), std::move(cb), std::move(interrupt));
        },
        [](postgres::Pool& pool, std::string q, Params p, postgres::Connection::JsonCallback cb,
           postgres::QueryOptions o) { return pool.fetch_json(std::move(q), std::move(p), std::move(cb), o); });
}

void DatabaseImpl::open_session(const std::shared_ptr<DatabaseImpl>& self, Database::SessionCallback done) {
    if (open_sessions_.fetch_add(1) >= config_.max_sessions) {
        open_sessions_.fetch_sub(1);
        return done(base::Status::resource_exhausted("too many database sessions open (max_sessions " +
                                                     std::to_string(config_.max_sessions) + ")"));
    }
    if (sqlite_) {
        auto session = SessionImpl::open_sqlite(self, sqlite_->options());
        if (!session.is_ok()) {
            open_sessions_.fetch_sub(1);
            return done(session.status());
        }
        return done(std::make_unique<DbSession>(std::move(session).value()));
    }
    auto task = [this, self, done] {
        if (!pool_) {
            open_sessions_.fetch_sub(1);
            return done(base::Status::cancelled("database closed"));
        }
        pool_->acquire([this, self, done](base::Result<postgres::Lease> lease) {
            if (!lease.is_ok()) {
                open_sessions_.fetch_sub(1);
                observe(lease.status(), DbError{});
                return done(lease.status());
            }
            auto session = SessionImpl::over_lease(self, std::move(lease).value());
            sessions_.emplace(session.get(), session);
            done(std::make_unique<DbSession>(std::move(session)));
        });
    };
    if (!post(std::move(task))) {
        open_sessions_.fetch_sub(1);
        done(base::Status::cancelled("database closed"));
    }
}

namespace {
base::Status copy_on_sqlite() {
    return base::Status::invalid_argument("COPY is PostgreSQL's; SQLite takes INSERT statements");
}
}  // namespace

template <typename Start>
void DatabaseImpl::pool_copy(std::function<void(CopyCount)> done, const std::shared_ptr<QueryCancel>& handle,
                             Start start) {
    if (sqlite_) return done(copy_on_sqlite());
    auto task = [this, done, handle, start = std::move(start)]() mutable {
        if (!pool_) return done(base::Status::cancelled("database closed"));
        if (handle->requested()) return done(cancelled_by_client());
        on_pool(*handle, start(*pool_, [this, done](postgres::CopyResult r) {
            observe(r.status(), r.error());
            done(std::move(r));
        }));
    };
    if (!post(std::move(task))) done(base::Status::cancelled("database closed"));
}

void DatabaseImpl::copy_in(std::string copy_sql, postgres::CopySource source, std::function<void(CopyCount)> done,
                           std::int64_t timeout_ns, const std::shared_ptr<QueryCancel>& handle) {
    postgres::QueryOptions options{.timeout_ns = timeout(timeout_ns)};
    pool_copy(std::move(done), handle,
              [sql = std::move(copy_sql), source = std::move(source), options](postgres::Pool& pool,
                                                                               postgres::CopyCallback cb) mutable {
                  return pool.copy_in(std::move(sql), std::move(source), std::move(cb), options);
              });
}

namespace {
// A COPY's wake-up from any thread: posted to the database's loop, where the statement goes on (resume_copy).
std::function<void()> resume_on_loop(std::weak_ptr<DatabaseImpl> db,
                                     const std::shared_ptr<postgres::StatementCancel>& statement) {
    return [db = std::move(db), running = std::weak_ptr<postgres::StatementCancel>(statement)] {
        if (auto d = db.lock()) {
            d->post([running] {
                if (auto s = running.lock()) s->resume_copy();
            });
        }
    };
}
}  // namespace

void DatabaseImpl::copy_in_stream(std::string copy_sql, std::shared_ptr<CopyStream> stream,
                                  std::function<void(CopyCount)> done, std::int64_t timeout_ns,
                                  const std::shared_ptr<QueryCancel>& handle, std::weak_ptr<DatabaseImpl> self) {
    postgres::QueryOptions options{.timeout_ns = timeout(timeout_ns)};
    // However the COPY ends, the producer stops waiting for room and what it pushes later is dropped.
    auto finished = [stream, done = std::move(done)](CopyCount r) {
        done(std::move(r));
        stream->close();
    };
    pool_copy(std::move(finished), handle,
              [sql = std::move(copy_sql), stream = std::move(stream), options, weak = std::move(self)](
                  postgres::Pool& pool, postgres::CopyCallback cb) mutable {
                  std::shared_ptr<postgres::StatementCancel> statement = pool.copy_in(
                      std::move(sql), [stream](std::string& out) { return stream->pull(out); }, std::move(cb), options);
                  // A piece pushed while the connection waits for one wakes it on this loop.
                  stream->set_wake(resume_on_loop(weak, statement));
                  return statement;
              });
}

void DatabaseImpl::copy_out(std::string copy_sql, CopyOutSink sink, std::function<void(CopyCount)> done,
                            std::int64_t timeout_ns, const std::shared_ptr<QueryCancel>& handle) {
    postgres::QueryOptions options{.timeout_ns = timeout(timeout_ns)};
    pool_copy(std::move(done), handle,
              [sql = std::move(copy_sql), sink = std::move(sink), options](postgres::Pool& pool,
                                                                           postgres::CopyCallback cb) mutable {
                  return pool.copy_out(std::move(sql), std::move(sink), std::move(cb), options);
              });
}

void DatabaseImpl::copy_out_stream(std::string copy_sql, std::shared_ptr<CopyOutStream> stream,
                                   std::function<void(CopyCount)> done, std::int64_t timeout_ns,
                                   const std::shared_ptr<QueryCancel>& handle, std::weak_ptr<DatabaseImpl> self) {
    postgres::QueryOptions options{.timeout_ns = timeout(timeout_ns)};
    auto finished = [stream, done = std::move(done)](CopyCount r) {
        done(std::move(r));
        stream->end();
    };
    pool_copy(std::move(finished), handle,
              [sql = std::move(copy_sql), stream = std::move(stream), options, weak = std::move(self)](
                  postgres::Pool& pool, postgres::CopyCallback cb) mutable {
                  std::shared_ptr<postgres::StatementCancel> statement = pool.copy_out(
                      std::move(sql), [stream](std::string_view data) { return stream->offer(data); }, std::move(cb),
                      options);
                  // The consumer took enough: the paused connection reads on, on this loop.
                  stream->set_resume(resume_on_loop(weak, statement));
                  return statement;
              });
}

void DatabaseImpl::open_listener(const std::shared_ptr<DatabaseImpl>& self, ListenerHandlers handlers,
                                 Database::ListenerCallback done) {
    if (sqlite_) return done(base::Status::invalid_argument("LISTEN/NOTIFY is PostgreSQL's"));
    if (open_sessions_.fetch_add(1) >= config_.max_sessions) {
        open_sessions_.fetch_sub(1);
        return done(base::Status::resource_exhausted("too many database sessions open (max_sessions " +
                                                     std::to_string(config_.max_sessions) + ")"));
    }
    auto task = [this, self, handlers = std::move(handlers), done]() mutable {
        if (!pool_) {
            open_sessions_.fetch_sub(1);
            return done(base::Status::cancelled("database closed"));
        }
        auto listener = std::make_shared<ListenerImpl>(self, std::move(handlers));
        listeners_.emplace(listener.get(), listener);
        listener->start(std::move(done));
    };
    if (!post(std::move(task))) {
        open_sessions_.fetch_sub(1);
        done(base::Status::cancelled("database closed"));
    }
}

void DatabaseImpl::forget_listener(ListenerImpl* listener) {
    if (listeners_.erase(listener) > 0) release_session_slot();
}

// ---- Database ----

base::Result<std::unique_ptr<Database>> Database::open(DatabaseConfig config) {
    SLIPSTREAM_ASSIGN_OR_RETURN(DatabaseTarget target, parse_database_url(config.url));
    if (config.max_size == 0) return base::Status::invalid_argument("database pool max_size must be at least 1");
    if (config.min_size > config.max_size)
        return base::Status::invalid_argument("database pool min_size must not exceed max_size");
    if (config.acquire_timeout_ns <= 0 || config.connect_timeout_ns <= 0 || config.statement_timeout_ns < 0)
        return base::Status::invalid_argument("database timeouts must be positive (statement_timeout 0: none)");
    auto impl = std::make_shared<DatabaseImpl>(std::move(config), std::move(target));
    SLIPSTREAM_RETURN_IF_ERROR(impl->start());
    return std::unique_ptr<Database>(new Database(std::move(impl)));
}

Database::Database(std::shared_ptr<DatabaseImpl> impl) : impl_(std::move(impl)) {}

Database::~Database() {
    impl_->stop();
}

std::shared_ptr<QueryCancel> Database::query(std::string sql, Params params, QueryCallback done,
                                             std::int64_t timeout_ns, bool idempotent) {
    auto handle = std::make_shared<QueryCancel>(impl_);
    impl_->query(std::move(sql), std::move(params), std::move(done), timeout_ns, idempotent, handle);
    return handle;
}

std::shared_ptr<QueryCancel> Database::fetch_json(std::string sql, Params params, JsonCallback done,
                                                  std::int64_t timeout_ns, bool idempotent) {
    auto handle = std::make_shared<QueryCancel>(impl_);
    impl_->fetch_json(std::move(sql), std::move(params), std::move(done), timeout_ns, idempotent, handle);
    return handle;
}

void Database::open_session(SessionCallback done) {
    impl_->open_session(impl_, std::move(done));
}

std::shared_ptr<QueryCancel> Database::copy_in(std::string copy_sql, std::vector<std::vector<Value>> rows,
                                               std::function<void(CopyCount)> done, std::int64_t timeout_ns) {
    auto handle = std::make_shared<QueryCancel>(impl_);
    impl_->copy_in(std::move(copy_sql), postgres::copy_rows(std::move(rows)), std::move(done), timeout_ns, handle);
    return handle;
}

std::shared_ptr<QueryCancel> Database::copy_in_data(std::string copy_sql, std::string data,
                                                    std::function<void(CopyCount)> done, std::int64_t timeout_ns) {
    auto handle = std::make_shared<QueryCancel>(impl_);
    impl_->copy_in(std::move(copy_sql), postgres::copy_bytes(std::move(data)), std::move(done), timeout_ns, handle);
    return handle;
}

std::shared_ptr<QueryCancel> Database::copy_in_stream(std::string copy_sql, std::shared_ptr<CopyStream> stream,
                                                      std::function<void(CopyCount)> done, std::int64_t timeout_ns) {
    auto handle = std::make_shared<QueryCancel>(impl_);
    impl_->copy_in_stream(std::move(copy_sql), std::move(stream), std::move(done), timeout_ns, handle, impl_);
    return handle;
}

std::shared_ptr<QueryCancel> Database::copy_out(std::string copy_sql, CopyOutSink sink,
                                                std::function<void(CopyCount)> done, std::int64_t timeout_ns) {
    auto handle = std::make_shared<QueryCancel>(impl_);
    impl_->copy_out(std::move(copy_sql), std::move(sink), std::move(done), timeout_ns, handle);
    return handle;
}

std::shared_ptr<QueryCancel> Database::copy_out_stream(std::string copy_sql, std::shared_ptr<CopyOutStream> stream,
                                                       std::function<void(CopyCount)> done, std::int64_t timeout_ns) {
    auto handle = std::make_shared<QueryCancel>(impl_);
    impl_->copy_out_stream(std::move(copy_sql), std::move(stream), std::move(done), timeout_ns, handle, impl_);
    return handle;
}

void Database::open_listener(ListenerHandlers handlers, ListenerCallback done) {
    impl_->open_listener(impl_, std::move(handlers), std::move(done));
}

bool Database::ready() const {
    return impl_->ready();
}
Backend Database::backend() const {
    return impl_->target().backend;
}
const DatabaseConfig& Database::config() const {
    return impl_->config();
}

}  // namespace slipstream::store
