// DatabaseImpl: the state behind a Database: its loop thread, the backend, readiness and the open sessions.
#pragma once

#include <atomic>
#include <memory>
#include <mutex>
#include <thread>
#include <unordered_map>
#include <unordered_set>

#include "base/clock.h"
#include "net/event_loop.h"
#include "net/timer.h"
#include "store/database/database.h"
#include "store/database/db_listener.h"
#include "store/postgres/pool.h"
#include "store/sqlite/database.h"
#include "store/worker_pool.h"

namespace slipstream::store {

class SessionImpl;
class ListenerImpl;

/// "statement cancelled by the client": what a cancelled statement's callback hears.
base::Status cancelled_by_client();

/// Shared by the Database and its sessions (a session may outlive the Database: then its calls are refused).
/// pool_, sessions_ and probe_timer_ are touched on the loop thread only.
class DatabaseImpl {
  public:
    DatabaseImpl(DatabaseConfig config, DatabaseTarget target);
    ~DatabaseImpl();

    base::Status start();
    /// Closes the sessions and the pool on the loop, stops and joins it. Idempotent.
    void stop();
    /// Runs `task` on the loop thread; false (task dropped) once stopped. Any thread.
    bool post(net::Task task);

    void query(std::string sql, Params params, Database::QueryCallback done, std::int64_t timeout_ns, bool idempotent,
               const std::shared_ptr<QueryCancel>& handle);
    void fetch_json(std::string sql, Params params, Database::JsonCallback done, std::int64_t timeout_ns,
                    bool idempotent, const std::shared_ptr<QueryCancel>& handle);
    void open_session(const std::shared_ptr<DatabaseImpl>& self, Database::SessionCallback done);
    /// `self`: this, for the stream's wake-ups (they may outlive the Database).
    void copy_in_stream(std::string copy_sql, std::shared_ptr<CopyStream> stream, std::function<void(CopyCount)> done,
                        std::int64_t timeout_ns, const std::shared_ptr<QueryCancel>& handle,
                        std::weak_ptr<DatabaseImpl> self);
    void copy_in(std::string copy_sql, postgres::CopySource source, std::function<void(CopyCount)> done,
                 std::int64_t timeout_ns, const std::shared_ptr<QueryCancel>& handle);
    void copy_out(std::string copy_sql, CopyOutSink sink, std::function<void(CopyCount)> done, std::int64_t timeout_ns,
                  const std::shared_ptr<QueryCancel>& handle);
    void copy_out_stream(std::string copy_sql, std::shared_ptr<CopyOutStream> stream,
                         std::function<void(CopyCount)> done, std::int64_t timeout_ns,
                         const std::shared_ptr<QueryCancel>& handle, std::weak_ptr<DatabaseImpl> self);
    void open_listener(const std::shared_ptr<DatabaseImpl>& self, ListenerHandlers handlers,
                       Database::ListenerCallback done);
    /// Loop thread: runs what `handle` asks for (QueryCancel::cancel posts it).
    static void run_cancel(QueryCancel& handle);
    /// Loop thread: `handle`'s statement is running on the pool under `pool_handle`.
    static void on_pool(QueryCancel& handle, std::shared_ptr<postgres::StatementCancel> pool_handle);
    /// Loop thread: what cancelling `handle` does from now on (empty: nothing).
    static void set_stop(QueryCancel& handle, std::function<void()> stop) { handle.stop_ = std::move(stop); }
    /// SQLite: `done` wrapped to run once, and `handle` set to interrupt the statement and answer kCancelled.
    template <typename R>
    static std::function<void(R)> sqlite_cancellable(std::function<void(R)> done,
                                                     const std::shared_ptr<QueryCancel>& handle,
                                                     std::shared_ptr<sqlite::Interrupt> interrupt);
    /// Loop thread: a listener closed.
    void forget_listener(ListenerImpl* listener);
    /// Loop thread: a PostgreSQL session gave its lease back.
    void forget_session(SessionImpl* session) {
        sessions_.erase(session);
        release_session_slot();
    }
    /// Any thread: a session closed.
    void release_session_slot() { open_sessions_.fetch_sub(1); }
    /// Loop thread: a statement's outcome updates readiness.
    void observe(const base::Status& status, const DbError& error);
    /// The statement deadline for a call's `timeout_ns` (-1: the configured default).
    std::int64_t timeout(std::int64_t asked) const;
    /// PostgreSQL's options for a statement: its deadline, and prepared when the statement cache is on.
    postgres::QueryOptions statement_options(std::int64_t timeout_ns, bool idempotent = false) const {
        return {
            .timeout_ns = timeout(timeout_ns), .prepare = config_.statement_cache_size > 0, .idempotent = idempotent};
    }

    bool ready() const { return ready_.load(std::memory_order_relaxed); }
    const DatabaseConfig& config() const { return config_; }
    const DatabaseTarget& target() const { return target_; }
    net::EventLoop& loop() { return *loop_; }
    WorkerPool* cancel_workers() const { return cancel_workers_.get(); }

  private:
    void probe();
    // copy_in / copy_out: `start(pool, callback)` runs the COPY through the pool, cancellable through `handle`.
    template <typename Start>
    void pool_copy(std::function<void(CopyCount)> done, const std::shared_ptr<QueryCancel>& handle, Start start);
    // One statement on the SQLite workers or through the pool, cancellable through `handle`.
    template <typename Result, typename OnSqlite, typename OnPool>
    void statement(std::string sql, Params params, std::function<void(Result)> done, std::int64_t timeout_ns,
                   bool idempotent, const std::shared_ptr<QueryCancel>& handle, OnSqlite on_sqlite, OnPool on_pool);

    DatabaseConfig config_;
    DatabaseTarget target_;
    base::SystemClock clock_;
    std::unique_ptr<net::EventLoop> loop_;
    std::thread thread_;
    std::mutex mutex_;  // guards stopped_ against post()
    bool stopped_ = false;
    std::atomic<bool> ready_{false};
    std::atomic<std::size_t> open_sessions_{0};
    std::unique_ptr<WorkerPool> cancel_workers_;  // PostgreSQL: runs PQcancel for timed-out statements
    std::unique_ptr<postgres::Pool> pool_;        // PostgreSQL, loop thread
    std::unique_ptr<sqlite::Database> sqlite_;    // SQLite
    // PostgreSQL sessions holding a lease (loop thread). Owned here too, so that a session whose last handle goes
    // once the loop no longer takes tasks is still closed, and destroyed, on the loop by stop().
    std::unordered_map<SessionImpl*, std::shared_ptr<SessionImpl>> sessions_;
    std::unordered_map<ListenerImpl*, std::shared_ptr<ListenerImpl>> listeners_;  // open ones (loop thread)
    net::Timer probe_timer_;           // SELECT 1 after a second without an answer from the server
    base::MonoNanos last_answer_ = 0;  // loop thread: when the server last answered a statement
};

}  // namespace slipstream::store
