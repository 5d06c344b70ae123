// Database: SQLite for I/O threads: one connection per worker of a bounded pool, results posted back to the loop.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "base/result.h"
#include "base/status.h"
#include "net/event_loop.h"
#include "store/db_result.h"
#include "store/sqlite/session.h"
#include "store/value.h"
#include "store/worker_pool.h"

namespace slipstream::store::sqlite {

class WalCheckpointer;

enum class Synchronous : std::uint8_t { kOff, kNormal, kFull, kExtra };

struct DatabaseOptions {
    std::string path;                     // a file (created when missing), or ":memory:" (then threads is forced to 1)
    std::size_t threads = 2;              // workers, each with its own connection (WAL: readers run in parallel)
    std::size_t max_queue = 1024;         // statements waiting for a worker; beyond it kResourceExhausted
    std::int64_t busy_timeout_ms = 5000;  // how long a writer waits for another's lock before SQLITE_BUSY
    bool wal = true;                      // journal_mode=WAL
    Synchronous synchronous = Synchronous::kFull;  // FULL: a committed transaction survives power loss
    bool foreign_keys = true;
    bool read_only = false;
    /// WAL checkpoints off the committing connections (wal_checkpointer.h): a thread of their own checkpoints
    /// once a COMMIT leaves this many pages in the log. 0: SQLite's automatic checkpoint (inside that COMMIT,
    /// at 1000 pages). Files in WAL mode only.
    std::size_t checkpoint_pages = 1000;
    int checkpoint_nice = 10;  // the checkpoint thread's nice value (0: the process's)
    /// Set by Database::open when checkpoints run in the background; open_connection(options()) shares it.
    std::shared_ptr<WalCheckpointer> checkpointer;
};

/// Stops one statement of a Database (pass it to query / fetch_json). cancel(), from any thread: a statement not
/// started yet is dropped (its callback hears kCancelled when a worker reaches it), one running is interrupted
/// (the callback hears kCancelled, SQLITE_INTERRUPT): sqlite3_interrupt on its worker's connection, and a progress
/// handler installed while it runs that checks the request every kCheckEvery VM steps (sqlite3_interrupt alone
/// is lost when it lands before the statement's first step). A statement that finished first keeps its answer;
/// one waiting for another writer's lock (busy_timeout) ends when that wait does. Idempotent.
class Interrupt {
  public:
    static constexpr int kCheckEvery = 1000;

    void cancel();
    bool requested() const;
    /// A worker is running the statement now.
    bool running() const;
    /// The thread about to run the statement on `db` (a Database's worker, or a store::DbSession's own thread):
    /// false when it was cancelled before (then it must not run); end() once it finished.
    bool begin(sqlite3* db);
    void end();

  private:
    static int check(void* self);

    mutable std::mutex mutex_;  // held while interrupting, so `running_` cannot end (or close) meanwhile
    std::atomic<bool> requested_{false};
    sqlite3* running_ = nullptr;
};

/// The embedded store. Statements run on the workers (never on the caller's thread); each callback runs on the
/// loop given with the call, through EventLoop::post, exactly once. The loop must outlive the answer. query /
/// fetch_json / transaction are callable from any thread; destroy the Database after its last call was
/// answered or from a thread that no longer needs answers (the destructor runs what is queued, then closes).
class Database {
  public:
    using QueryCallback = std::function<void(QueryResult result)>;
    using JsonCallback = std::function<void(JsonResult result)>;
    using StatusCallback = std::function<void(base::Status status)>;
    /// Work run on a worker with its Session inside one transaction; an error return rolls it back.
    using TransactionWork = std::function<base::Status(Session& session)>;

    /// Opens `threads` connections and applies the PRAGMAs (control plane, blocking: call at start-up).
    /// Errors: kIoError / kInvalidArgument with SQLite's message (file not openable, not a database, WAL refused).
    static base::Result<std::unique_ptr<Database>> open(DatabaseOptions options);
    ~Database();
    Database(const Database&) = delete;
    Database& operator=(const Database&) = delete;

    /// One statement with parameters (?1..?n); see Session::query for the cell kinds.
    /// `interrupt` (may be null) cancels it.
    void query(net::EventLoop& loop, std::string sql, Params params, QueryCallback done,
               std::shared_ptr<Interrupt> interrupt = nullptr);
    /// The rows as a JSON array of objects, written on the worker without intermediate values.
    void fetch_json(net::EventLoop& loop, std::string sql, Params params, JsonCallback done,
                    std::shared_ptr<Interrupt> interrupt = nullptr);
    /// BEGIN IMMEDIATE; work(session); COMMIT, or ROLLBACK when work (or the COMMIT) fails. `done` hears the
    /// outcome: ok, the work's error, or SQLite's.
    void transaction(net::EventLoop& loop, TransactionWork work, StatusCallback done);
    /// Several statements without parameters (schema set-up), on one worker.
    void execute_script(net::EventLoop& loop, std::string script, StatusCallback done);

    const DatabaseOptions& options() const { return options_; }

  private:
    Database(DatabaseOptions options, std::vector<std::unique_ptr<Session>> sessions);
    // Queues `job`, or answers `refused` on the loop when the queue is full.
    void submit(net::EventLoop& loop, std::function<void(Session&)> job, std::function<void(base::Status)> refused);

    DatabaseOptions options_;
    std::vector<std::unique_ptr<Session>> sessions_;  // one per worker, used only by that worker
    std::unique_ptr<WorkerPool> workers_;
};

/// One more connection to the database `options` names, configured like a Database's (PRAGMAs), for a caller
/// that runs it on a thread of its own (a held session). kInvalidArgument for ":memory:" (another connection
/// would see another database). Blocking.
base::Result<std::unique_ptr<Session>> open_connection(const DatabaseOptions& options);

}  // namespace slipstream::store::sqlite
