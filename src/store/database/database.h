// Database: one handle for PostgreSQL or SQLite from any thread; answers on the database's own thread.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "base/status.h"
#include "store/database/copy_out_stream.h"
#include "store/database/copy_stream.h"
#include "store/database/sync_statements.h"
#include "store/db_result.h"
#include "store/value.h"

namespace slipstream::store {
/// Rows a COPY took or gave (PostgreSQL's command tag count).
using CopyCount = DbResult<std::uint64_t>;
/// Takes one piece of COPY TO STDOUT data (a row, in text and CSV format) on the database's thread; an error
/// ends the COPY (the rest of the data is read and dropped) and is what the caller hears.
using CopyOutSink = std::function<base::Status(std::string_view data)>;
}  // namespace slipstream::store

namespace slipstream::store {

enum class Backend : std::uint8_t { kPostgres, kSqlite };

/// How to reach the database and the limits of its pool. Defaults are what a web app wants: a small pool,
/// bounded waits, no statement without a deadline when statement_timeout_ns is set.
struct DatabaseConfig {
    /// postgresql://... or postgres://... (libpq's URI; `PG*` variables fill the rest; a key=value conninfo is
    /// accepted with the "postgresql:" prefix too), or sqlite:///absolute/path, sqlite://relative/path,
    /// sqlite://:memory:.
    std::string url;
    std::size_t min_size = 1;                         // PostgreSQL connections opened at start
    std::size_t max_size = 10;                        // PostgreSQL connections; SQLite worker threads (at most 8)
    std::int64_t acquire_timeout_ns = 5'000'000'000;  // a statement waiting for a connection hears kTimeout after
    std::int64_t connect_timeout_ns = 5'000'000'000;  // per PostgreSQL connection attempt
    std::int64_t statement_timeout_ns = 0;            // default deadline of every statement (0: none)
    std::size_t max_sessions = 64;                    // sessions (transactions, listeners) open at once
    /// PostgreSQL: statements each connection keeps prepared (named, parsed and planned once, like asyncpg's
    /// statement cache); past it, new statements run unnamed. 0: every statement unnamed (for a pooler such as
    /// PgBouncer in transaction mode, which cannot hold named statements). A stale cached statement (a schema
    /// change, DISCARD ALL) is prepared afresh and run again outside a transaction.
    std::size_t statement_cache_size = 256;
};

/// One PostgreSQL NOTIFY (or, on SQLite, nothing: LISTEN is PostgreSQL's).
struct DbNotification {
    std::string channel;
    std::string payload;
    int sender_pid = 0;
};

class DatabaseImpl;
class SessionImpl;
class DbListener;
struct ListenerHandlers;

/// Stops one statement started with Database::query, fetch_json, copy_in or copy_out, or with a DbSession's
/// (they return it). cancel() may be
/// called from any thread, any number of times, before or after the statement ended or the Database closed; it
/// posts to the database's thread and returns at once. There, unless the statement was answered already, its
/// callback hears kCancelled at once. PostgreSQL: a statement waiting for a connection stops waiting, one queued
/// is dropped, one running is cancelled on the server (PQcancel) and its connection serves others once the
/// server has stopped it (postgres::Connection::cancel). SQLite: one not started yet never runs, one running is
/// interrupted (sqlite3_interrupt on its worker's connection). A DbSession's statement: PostgreSQL, one queued on
/// the session's connection is dropped, one running is cancelled on the server (inside a transaction the server
/// then fails the transaction: roll it back); SQLite, interrupted as above. Dropping the handle cancels nothing.
class QueryCancel : public std::enable_shared_from_this<QueryCancel> {
  public:
    explicit QueryCancel(std::weak_ptr<DatabaseImpl> db) : db_(std::move(db)) {}
    void cancel();
    /// cancel() was called.
    bool requested() const { return requested_.load(); }

  private:
    friend class DatabaseImpl;
    std::weak_ptr<DatabaseImpl> db_;
    std::atomic<bool> requested_{false};
    std::function<void()> stop_;  // the database's thread: what cancelling does
};

/// A connection held by one caller for several statements (a transaction, savepoints, LISTEN): statements run in
/// the order they were called. Any thread; answers on the database's thread. Closing (or destroying the last
/// reference) gives the connection back, rolling back a transaction left open. Made by Database::open_session.
class DbSession {
  public:
    using QueryCallback = std::function<void(QueryResult result)>;
    using JsonCallback = std::function<void(JsonResult result)>;

    explicit DbSession(std::shared_ptr<SessionImpl> impl) : impl_(std::move(impl)) {}
    ~DbSession();
    DbSession(const DbSession&) = delete;
    DbSession& operator=(const DbSession&) = delete;

    /// One statement on the held connection; the handle cancels it (QueryCancel), ignoring it is fine.
    std::shared_ptr<QueryCancel> query(std::string sql, Params params, QueryCallback done,
                                       std::int64_t timeout_ns = -1);
    std::shared_ptr<QueryCancel> fetch_json(std::string sql, Params params, JsonCallback done,
                                            std::int64_t timeout_ns = -1);
    /// PostgreSQL: `COPY ... FROM STDIN` of `rows` on the held connection (inside its transaction, if one is
    /// open: a failed COPY fails the transaction). SQLite: kInvalidArgument.
    std::shared_ptr<QueryCancel> copy_in(std::string copy_sql, std::vector<std::vector<Value>> rows,
                                         std::function<void(CopyCount)> done, std::int64_t timeout_ns = -1);
    /// copy_in with the data already encoded in the statement's format (Database::copy_in_data's).
    std::shared_ptr<QueryCancel> copy_in_data(std::string copy_sql, std::string data,
                                              std::function<void(CopyCount)> done, std::int64_t timeout_ns = -1);
    /// PostgreSQL: `COPY table|(query) TO STDOUT`, each piece of data to `sink`, then the row count. SQLite:
    /// kInvalidArgument.
    std::shared_ptr<QueryCancel> copy_out(std::string copy_sql, CopyOutSink sink, std::function<void(CopyCount)> done,
                                          std::int64_t timeout_ns = -1);
    /// copy_in with data made while the COPY runs (Database::copy_in_stream's) on this session's connection.
    std::shared_ptr<QueryCancel> copy_in_stream(std::string copy_sql, std::shared_ptr<CopyStream> stream,
                                                std::function<void(CopyCount)> done, std::int64_t timeout_ns = -1);
    /// copy_out into `stream` (Database::copy_out_stream's back-pressure) on this session's connection.
    std::shared_ptr<QueryCancel> copy_out_stream(std::string copy_sql, std::shared_ptr<CopyOutStream> stream,
                                                 std::function<void(CopyCount)> done, std::int64_t timeout_ns = -1);
    /// PostgreSQL: every NOTIFY on a channel this session LISTENs to (send "LISTEN name" with query()); runs on
    /// the database's thread. Set before the LISTEN. A lost connection is not re-established here: a
    /// DbListener (Database::open_listener) reconnects and LISTENs again.
    void set_notification_handler(std::function<void(const DbNotification&)> handler);
    /// SQLite: runs `work` on the session's own thread after the statements already called, with its connection
    /// (SyncStatements: every statement answered at once, no hop each); `work` runs there exactly once and must
    /// not wait on anything else. It gets nullptr when the session is closed or its queue is full, and on
    /// PostgreSQL (whose statements are answered on the event loop: use one statement, or query() in order).
    void run_on_thread(std::function<void(SyncStatements* connection)> work);
    /// Gives the connection back (after the statements already called). Idempotent.
    void close();

  private:
    std::shared_ptr<SessionImpl> impl_;
};

/// Thread-safe. PostgreSQL runs on the database's own event loop thread (non-blocking libpq, a pool of
/// connections); SQLite on a bounded worker pool. Every callback runs exactly once, on the database's loop
/// thread (or a SQLite worker's), except a refusal decided before anything was queued (past max_sessions, a SQLite
/// session's open, COPY on SQLite, a call after the destructor): that one runs at once on the caller's thread. A
/// caller hands the answer on from there (a Responder, an eventfd). The destructor stops the loop after answering
/// what is in flight with kCancelled.
class Database {
  public:
    using QueryCallback = std::function<void(QueryResult result)>;
    using JsonCallback = std::function<void(JsonResult result)>;
    using SessionCallback = std::function<void(base::Result<std::unique_ptr<DbSession>> session)>;
    using ListenerCallback = std::function<void(base::Result<std::unique_ptr<DbListener>> listener)>;

    /// Parses the URL, starts the thread, opens SQLite (blocking: call at start-up) or starts PostgreSQL's
    /// min_size connections (not awaited: a server that is down makes ready() false, not open() fail).
    /// kInvalidArgument for a URL of another scheme or a bad limit; SQLite's error when the file cannot be used.
    static base::Result<std::unique_ptr<Database>> open(DatabaseConfig config);
    ~Database();
    Database(const Database&) = delete;
    Database& operator=(const Database&) = delete;

    /// One statement ($1..$n on PostgreSQL, ?1..?n or ? on SQLite). timeout_ns: -1 the configured default, 0 none.
    /// `idempotent`: on PostgreSQL a lost connection is retried once on another (never after cancel()).
    /// The returned handle cancels it (QueryCancel); ignoring it is fine.
    std::shared_ptr<QueryCancel> query(std::string sql, Params params, QueryCallback done, std::int64_t timeout_ns = -1,
                                       bool idempotent = false);
    /// The rows as a JSON array of objects, written by the driver without intermediate values.
    std::shared_ptr<QueryCancel> fetch_json(std::string sql, Params params, JsonCallback done,
                                            std::int64_t timeout_ns = -1, bool idempotent = false);
    /// A held connection (kResourceExhausted past max_sessions, kTimeout when none frees in time).
    void open_session(SessionCallback done);
    /// PostgreSQL: `COPY table (columns) FROM STDIN` with `rows` sent in COPY's text format, streamed in chunks;
    /// `done` hears the row count, or the server's error (nothing is kept then). SQLite: kInvalidArgument.
    /// cancel() during the data ends the COPY with CopyFail (nothing is kept).
    std::shared_ptr<QueryCancel> copy_in(std::string copy_sql, std::vector<std::vector<Value>> rows,
                                         std::function<void(CopyCount)> done, std::int64_t timeout_ns = -1);
    /// copy_in with the data already encoded in the statement's format (COPY text by default: store/copy_text.h;
    /// CSV or binary when the statement says so), streamed in 256 KiB pieces. The fast path for many rows: no
    /// Value per cell.
    std::shared_ptr<QueryCancel> copy_in_data(std::string copy_sql, std::string data,
                                              std::function<void(CopyCount)> done, std::int64_t timeout_ns = -1);
    /// copy_in with data made while the COPY runs: the COPY starts at once and sends each piece the producer
    /// pushes into `stream` (CopyStream) as it arrives, so making the data and sending it overlap. SQLite:
    /// kInvalidArgument. cancel() or a timeout ends the COPY with CopyFail (nothing is kept). The stream is closed
    /// (CopyStream::close) before `done` runs.
    std::shared_ptr<QueryCancel> copy_in_stream(std::string copy_sql, std::shared_ptr<CopyStream> stream,
                                                std::function<void(CopyCount)> done, std::int64_t timeout_ns = -1);
    /// PostgreSQL: `COPY table|(query) TO STDOUT [WITH (...)]` through the pool: each piece of data to `sink` (on
    /// the database's thread) as it arrives, then `done` with the row count or the error (a sink's error ends
    /// it). Never retried. SQLite: kInvalidArgument.
    std::shared_ptr<QueryCancel> copy_out(std::string copy_sql, CopyOutSink sink, std::function<void(CopyCount)> done,
                                          std::int64_t timeout_ns = -1);
    /// copy_out into `stream` (CopyOutStream), which a consumer on any thread takes from: when the data waiting
    /// there reaches its limit the connection stops reading until the consumer has taken half of it, so a slow
    /// consumer holds the server back instead of filling memory. `done` runs, then the stream ends
    /// (CopyOutStream::end). A consumer that gives up closes the stream and cancels the statement.
    std::shared_ptr<QueryCancel> copy_out_stream(std::string copy_sql, std::shared_ptr<CopyOutStream> stream,
                                                 std::function<void(CopyCount)> done, std::int64_t timeout_ns = -1);
    /// PostgreSQL: a LISTEN connection of its own that reconnects (db_listener.h); counts as a session
    /// (kResourceExhausted past max_sessions). `done` hears it once connected, or kUnavailable / kTimeout.
    /// SQLite: kInvalidArgument.
    void open_listener(ListenerHandlers handlers, ListenerCallback done);

    /// Whether the database answered the last time it was asked: false after a failed connection attempt or a
    /// lost connection until one succeeds again. A `SELECT 1` probe runs after every second without an answer
    /// from the server, so an idle app notices an outage within about a second. SQLite: always true.
    bool ready() const;
    Backend backend() const;
    const DatabaseConfig& config() const;

  private:
    explicit Database(std::shared_ptr<DatabaseImpl> impl);
    std::shared_ptr<DatabaseImpl> impl_;  // sessions share it: a session outliving the Database is answered kCancelled
};

/// The backend a URL names and what to open: PostgreSQL's conninfo (the URL itself, or what follows
/// "postgresql:" when it is key=value), or SQLite's path (":memory:" for an in-memory database).
struct DatabaseTarget {
    Backend backend;
    std::string location;
};
base::Result<DatabaseTarget> parse_database_url(std::string_view url);

}  // namespace slipstream::store
