// SessionImpl: a connection held by one DbSession: a pool lease (PostgreSQL) or a connection on its own thread.
#pragma once

#include <atomic>
#include <functional>
#include <memory>

#include "base/result.h"
#include "store/database/database.h"
#include "store/postgres/pool.h"
#include "store/sqlite/database.h"
#include "store/sqlite/session.h"
#include "store/worker_pool.h"

namespace slipstream::store {

class DatabaseImpl;

/// PostgreSQL: statements go to the leased connection on the database's loop, in call order. SQLite: a
/// connection of its own on a one-thread worker, answers posted to the database's loop. Closing gives the
/// connection back (a transaction left open is rolled back; LISTENs are undone).
class SessionImpl : public std::enable_shared_from_this<SessionImpl> {
  public:
    /// Loop thread.
    static std::shared_ptr<SessionImpl> over_lease(std::shared_ptr<DatabaseImpl> db, postgres::Lease lease);
    /// Blocking (opens a connection).
    static base::Result<std::shared_ptr<SessionImpl>> open_sqlite(std::shared_ptr<DatabaseImpl> db,
                                                                  const sqlite::DatabaseOptions& options);
    SessionImpl(std::shared_ptr<DatabaseImpl> db, postgres::Lease lease);
    SessionImpl(std::shared_ptr<DatabaseImpl> db, std::unique_ptr<sqlite::Session> connection);
    ~SessionImpl();

    std::shared_ptr<QueryCancel> query(std::string sql, Params params, DbSession::QueryCallback done,
                                       std::int64_t timeout_ns);
    std::shared_ptr<QueryCancel> fetch_json(std::string sql, Params params, DbSession::JsonCallback done,
                                            std::int64_t timeout_ns);
    std::shared_ptr<QueryCancel> copy_in(std::string copy_sql, postgres::CopySource source,
                                         std::function<void(CopyCount)> done, std::int64_t timeout_ns);
    std::shared_ptr<QueryCancel> copy_out(std::string copy_sql, CopyOutSink sink, std::function<void(CopyCount)> done,
                                          std::int64_t timeout_ns);
    std::shared_ptr<QueryCancel> copy_in_stream(std::string copy_sql, std::shared_ptr<CopyStream> stream,
                                                std::function<void(CopyCount)> done, std::int64_t timeout_ns);
    std::shared_ptr<QueryCancel> copy_out_stream(std::string copy_sql, std::shared_ptr<CopyOutStream> stream,
                                                 std::function<void(CopyCount)> done, std::int64_t timeout_ns);
    void set_notification_handler(std::function<void(const DbNotification&)> handler);
    void run_on_thread(std::function<void(SyncStatements*)> work);
    void close();
    /// Loop thread: the lease goes back now (the database is stopping, or the session closes).
    void close_on_loop();

  private:
    // One statement, cancellable through the returned handle: `on_sqlite(session, sql, params)` on the session's
    // SQLite thread, or `on_postgres(connection, sql, params, callback, options)` (its StatementId) on the leased
    // connection.
    template <typename Result, typename OnSqlite, typename OnPostgres>
    std::shared_ptr<QueryCancel> run(std::string sql, Params params, std::function<void(Result)> done,
                                     std::int64_t timeout_ns, OnSqlite on_sqlite, OnPostgres on_postgres);
    // A COPY's wake-up from any thread: posted to the database's loop, where statement `id` of the session's
    // connection goes on (Connection::resume_copy).
    static std::function<void()> resume_later(std::weak_ptr<SessionImpl> session, std::weak_ptr<DatabaseImpl> db,
                                              postgres::Connection::StatementId id);
    // SQLite: runs `job` on the session's thread; false once closed.
    bool on_worker(std::function<void()> job);

    std::shared_ptr<DatabaseImpl> db_;
    std::atomic<bool> closed_{false};
    // PostgreSQL (loop thread)
    postgres::Lease lease_;
    bool listening_ = false;
    // SQLite
    std::unique_ptr<sqlite::Session> sqlite_;
    std::unique_ptr<WorkerPool> worker_;
};

}  // namespace slipstream::store
