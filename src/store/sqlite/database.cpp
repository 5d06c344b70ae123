// Database: opening and configuring the connections, and the hop worker -> loop for every answer.
#include "store/sqlite/database.h"

#include <sqlite3.h>

#include "store/sqlite/wal_checkpointer.h"

namespace slipstream::store::sqlite {

namespace {

const char* synchronous_name(Synchronous s) {
    switch (s) {
        case Synchronous::kOff:
            return "OFF";
        case Synchronous::kNormal:
            return "NORMAL";
        case Synchronous::kExtra:
            return "EXTRA";
        default:
            return "FULL";
    }
}

base::Result<std::unique_ptr<Session>> open_session(const DatabaseOptions& o) {
    sqlite3* db = nullptr;
    int flags = (o.read_only ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE) |
                SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_URI;
    int rc = sqlite3_open_v2(o.path.c_str(), &db, flags, nullptr);
    auto session = std::make_unique<Session>(db);  // closes db on every path below
    if (rc != SQLITE_OK) {
        std::string msg = db != nullptr ? sqlite3_errmsg(db) : sqlite3_errstr(rc);
        return status_for_sqlite(rc, "cannot open " + o.path + ": " + msg);
    }
    sqlite3_extended_result_codes(db, 1);
    sqlite3_busy_timeout(db, static_cast<int>(o.busy_timeout_ms));
    std::string pragmas = std::string("PRAGMA synchronous=") + synchronous_name(o.synchronous) +
                          "; PRAGMA foreign_keys=" + (o.foreign_keys ? "ON" : "OFF") + ";";
    if (o.wal && !o.read_only) pragmas = "PRAGMA journal_mode=WAL; " + pragmas;
    base::Status s = session->execute_script(pragmas);
    if (!s.is_ok()) return base::Status::invalid_argument("cannot configure " + o.path + ": " + s.message());
    if (o.checkpointer) o.checkpointer->install(*session, o.checkpointer);
    return session;
}

}  // namespace

void Interrupt::cancel() {
    requested_.store(true);
    std::lock_guard<std::mutex> lock(mutex_);
    // Safe from another thread while the statement runs (the lock keeps it from ending meanwhile); with no
    // statement active it does nothing, which check() covers.
    if (running_ != nullptr) sqlite3_interrupt(running_);
}

bool Interrupt::requested() const {
    return requested_.load();
}

bool Interrupt::running() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return running_ != nullptr;
}

int Interrupt::check(void* self) {
    return static_cast<Interrupt*>(self)->requested_.load(std::memory_order_relaxed) ? 1 : 0;
}

bool Interrupt::begin(sqlite3* db) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (requested_.load()) return false;
    running_ = db;
    sqlite3_progress_handler(db, kCheckEvery, &Interrupt::check, this);
    return true;
}

void Interrupt::end() {
    std::lock_guard<std::mutex> lock(mutex_);
    sqlite3_progress_handler(running_, 0, nullptr, nullptr);
    running_ = nullptr;
}

base::Result<std::unique_ptr<Session>> open_connection(const DatabaseOptions& options) {
    if (options.path.empty() || options.path == ":memory:")
        return base::Status::invalid_argument(
            "an in-memory SQLite database has one connection: a session needs a database file");
    return open_session(options);
}

base::Result<std::unique_ptr<Database>> Database::open(DatabaseOptions options) {
    if (options.path == ":memory:" || options.path.empty()) {
        options.threads = 1;  // each connection would see its own private memory database
        if (options.path.empty()) options.path = ":memory:";
    }
    if (options.threads == 0) options.threads = 1;
    options.checkpointer = nullptr;
    if (options.checkpoint_pages > 0 && options.wal && !options.read_only && options.path != ":memory:") {
        SLIPSTREAM_ASSIGN_OR_RETURN(options.checkpointer, WalCheckpointer::start(options));
    }
    std::vector<std::unique_ptr<Session>> sessions;
    for (std::size_t i = 0; i < options.threads; ++i) {
        SLIPSTREAM_ASSIGN_OR_RETURN(auto session, open_session(options));
        sessions.push_back(std::move(session));
    }
    return std::unique_ptr<Database>(new Database(std::move(options), std::move(sessions)));
}

Database::Database(DatabaseOptions options, std::vector<std::unique_ptr<Session>> sessions)
    : options_(std::move(options)), sessions_(std::move(sessions)) {
    workers_ = std::make_unique<WorkerPool>(
        WorkerPoolOptions{.threads = sessions_.size(), .max_queue = options_.max_queue, .name = "ss-sqlite"});
}

Database::~Database() {
    workers_.reset();  // runs what is queued, joins; then the sessions close
}

void Database::submit(net::EventLoop& loop, std::function<void(Session&)> job,
                      std::function<void(base::Status)> refused) {
    base::Status s = workers_->submit([this, job = std::move(job)](std::size_t worker) { job(*sessions_[worker]); });
    if (!s.is_ok()) loop.post([refused = std::move(refused), s]() { refused(s); });
}

namespace {
base::Status cancelled_before_start() {
    return base::Status::cancelled("statement cancelled by the client before it started");
}
}  // namespace

void Database::query(net::EventLoop& loop, std::string sql, Params params, QueryCallback done,
                     std::shared_ptr<Interrupt> interrupt) {
    submit(
        loop,
        [&loop, sql = std::move(sql), params = std::move(params), done, interrupt](Session& session) {
            std::shared_ptr<QueryResult> result;
            if (interrupt && !interrupt->begin(session.handle())) {
                result = std::make_shared<QueryResult>(cancelled_before_start());
            } else {
                result = std::make_shared<QueryResult>(session.query(sql, params));
                if (interrupt) interrupt->end();
            }
            loop.post([done, result]() { done(std::move(*result)); });
        },
        [done](base::Status s) { done(QueryResult(std::move(s))); });
}

void Database::fetch_json(net::EventLoop& loop, std::string sql, Params params, JsonCallback done,
                          std::shared_ptr<Interrupt> interrupt) {
    submit(
        loop,
        [&loop, sql = std::move(sql), params = std::move(params), done, interrupt](Session& session) {
            std::shared_ptr<JsonResult> result;
            if (interrupt && !interrupt->begin(session.handle())) {
                result = std::make_shared<JsonResult>(cancelled_before_start());
            } else {
                result = std::make_shared<JsonResult>(session.fetch_json(sql, params));
                if (interrupt) interrupt->end();
            }
            loop.post([done, result]() { done(std::move(*result)); });
        },
        [done](base::Status s) { done(JsonResult(std::move(s))); });
}

void Database::transaction(net::EventLoop& loop, TransactionWork work, StatusCallback done) {
    submit(
        loop,
        [&loop, work = std::move(work), done](Session& session) {
            // IMMEDIATE takes the write lock up front: no deadlock between two readers upgrading to writers.
            base::Status s = session.execute_script("BEGIN IMMEDIATE");
            if (s.is_ok()) {
                s = work(session);
                base::Status end = session.execute_script(s.is_ok() ? "COMMIT" : "ROLLBACK");
                if (s.is_ok()) s = end;
                if (!end.is_ok() && sqlite3_get_autocommit(session.handle()) == 0) {
                    session.execute_script("ROLLBACK").ignore_error();  // a failed COMMIT leaves it open
                }
            }
            loop.post([done, s]() { done(s); });
        },
        done);
}

void Database::execute_script(net::EventLoop& loop, std::string script, StatusCallback done) {
    submit(
        loop,
        [&loop, script = std::move(script), done](Session& session) {
            base::Status s = session.execute_script(script);
            loop.post([done, s]() { done(s); });
        },
        done);
}

}  // namespace slipstream::store::sqlite
