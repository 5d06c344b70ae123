// Connection: one PostgreSQL connection on libpq's non-blocking API, driven by an EventLoop (no blocked thread).
#pragma once

#include <libpq-fe.h>

#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>

#include "base/status.h"
#include "net/event_loop.h"
#include "net/io_handler.h"
#include "net/timer.h"
#include "store/db_result.h"
#include "store/postgres/copy_data.h"
#include "store/value.h"
#include "store/worker_pool.h"

namespace slipstream::store::postgres {

struct QueryOptions {
    /// Deadline from the moment the statement is sent; 0: none. When it passes the caller hears kTimeout at once
    /// and the server is asked to cancel the statement (PQcancel on the cancel workers); the connection serves
    /// the next statement once the cancelled one has ended, and is closed if it has not within kCancelGrace.
    std::int64_t timeout_ns = 0;
    /// Prepare the statement once per connection (named, cached by SQL text and parameter types) and execute
    /// the prepared one afterwards; else one unnamed Parse/Bind/Execute round trip each time.
    bool prepare = false;
    /// Pool::query / Pool::fetch_json only: when the connection is lost, run it once more on another
    /// connection. Only for work that is safe to repeat (reads, idempotent writes).
    bool idempotent = false;
};

struct ConnectOptions {
    /// Deadline for the whole connection attempt; 0: libpq's connect_timeout alone.
    std::int64_t timeout_ns = 0;
    /// Pipeline mode (PQenterPipelineMode): every queued statement is sent at once, each followed by its own
    /// sync point, so many statements share a round trip and an error fails only its own statement (inside an
    /// explicit transaction the server then refuses the rest of it, as without a pipeline).
    bool pipeline = false;
    /// Runs the blocking PQcancel of timed-out statements (may be null: then a timeout closes the connection).
    /// Must outlive the connection.
    WorkerPool* cancel_workers = nullptr;
    /// Prepared statements kept (QueryOptions::prepare); later distinct statements run unnamed. 0: none kept.
    std::size_t max_prepared = 256;
};

/// A NOTIFY received on a connection that LISTENs.
struct Notification {
    std::string channel;
    std::string payload;
    int sender_pid = 0;  // the notifying server process
};

/// Statements complete in the order they were queued, each with exactly one callback call (unless the
/// Connection is destroyed first: then with kCancelled). Without pipeline mode one statement is on the wire at a
/// time; with it, all of them. All methods: loop thread only. The connection never blocks: its socket is
/// registered with the loop, libpq is in non-blocking mode, output that does not fit the socket waits for
/// EPOLLOUT. Not thread-safe.
class Connection final : private net::IoHandler {
  public:
    /// Names one queued statement for cancel(); unique per connection, never 0.
    using StatementId = std::uint64_t;
    using ConnectCallback = std::function<void(Connection& conn, base::Status status)>;
    using QueryCallback = std::function<void(QueryResult result)>;
    using JsonCallback = std::function<void(JsonResult result)>;
    /// Told when the connection broke, or when its last queued statement ended (is_idle() again).
    using Listener = std::function<void(Connection& conn)>;
    /// Told of each NOTIFY for a channel this connection LISTENs to, in arrival order.
    using NotificationHandler = std::function<void(const Notification& notification)>;

    /// How long a cancelled statement may take to end before the connection is closed instead.
    static constexpr std::int64_t kCancelGrace = 2'000'000'000;
    /// A cancelled statement still running after this long gets another cancel request, until kCancelGrace: the
    /// server drops one that reaches it between two commands (a pipeline's next statement not started yet).
    static constexpr std::int64_t kCancelRepeat = 250'000'000;
    /// COPY data copy_in hands libpq in one loop turn before it lets the loop serve other sockets.
    static constexpr std::size_t kCopyBytesPerTurn = 1 << 20;

    /// Starts connecting with a libpq connection string or URI ("host=/run/pg dbname=app", "postgresql://...";
    /// PG* environment variables fill what it leaves out, as libpq reads them). `done` is called once, on the
    /// loop thread, never from inside connect(): ok, or kUnavailable with libpq's message, or kTimeout after
    /// options.timeout_ns. Statements may be queued before it is called.
    static std::unique_ptr<Connection> connect(net::EventLoop& loop, const std::string& conninfo,
                                               ConnectOptions options, ConnectCallback done);
    /// Unregisters and closes the socket; statements still queued complete with kCancelled.
    ~Connection();
    Connection(const Connection&) = delete;
    Connection& operator=(const Connection&) = delete;

    /// Queues `sql` with `params` ($1..$n). Completes with the rows (text format, typed by column OID) or the
    /// server's error (SQLSTATE, message, position); kUnavailable with connection_lost when the connection
    /// broke; kTimeout past options.timeout_ns. A `COPY ... FROM STDIN` / `TO STDOUT` statement is refused with
    /// kInvalidArgument (it runs through copy_in / copy_out).
    /// Returns the statement's id for cancel().
    StatementId query(std::string sql, Params params, QueryCallback done, QueryOptions options = {});
    /// Like query(), but the rows arrive as a JSON array of objects written straight from libpq's buffers
    /// (arrays of built-in types as nested JSON arrays).
    StatementId fetch_json(std::string sql, Params params, JsonCallback done, QueryOptions options = {});
    /// Queues `copy_sql` (`COPY table [(columns)] FROM STDIN [WITH (...)]`) and streams the data `source` gives,
    /// pulled only as the socket drains (kCopyBytesPerTurn at most per loop turn, then other sockets get theirs).
    /// Completes with the number of rows copied, or the server's error (a malformed row: 22P02 etc.; the
    /// server reports it when the data ends, so the rest of the source is still read and sent), or the
    /// source's own error (the COPY is aborted with CopyFail). kInvalidArgument for a statement that is not
    /// COPY ... FROM STDIN, or on a pipeline-mode connection (libpq runs no COPY in a pipeline).
    /// options.timeout_ns as for query(); options.prepare is ignored.
    StatementId copy_in(std::string copy_sql, CopySource source, CopyCallback done, QueryOptions options = {});
    /// The COPY `id`, whose source or sink answered copy_data_pending(), pulls again or reads on (a no-op for any
    /// other statement). Call it on the connection's loop.
    void resume_copy(StatementId id);
    /// Queues `copy_sql` (`COPY table|(query) TO STDOUT [WITH (...)]`); each CopyData message (a row, in text
    /// and CSV format) is handed to `sink` as it arrives. Completes with the number of rows, the server's
    /// error, or the sink's error (the rest of the data is then read and dropped). kInvalidArgument for a
    /// statement that is not COPY ... TO STDOUT, or on a pipeline-mode connection.
    StatementId copy_out(std::string copy_sql, CopySink sink, CopyCallback done, QueryOptions options = {});
    /// Cancels statement `id`: its callback hears kCancelled at once, from inside this call. One not sent yet is
    /// taken off the queue. One on the wire is cancelled on the server as a timed-out one is (PQcancel on the
    /// cancel workers; the connection serves the next statement once it ended and the cancel request was
    /// delivered, and is closed if that takes longer than kCancelGrace; without cancel workers it is closed at
    /// once). A COPY FROM STDIN in its data phase is ended with CopyFail instead. Pipeline mode: a statement
    /// behind others on the wire is cancelled on the server once it is the oldest (a cancel request stops
    /// whatever the server runs when it arrives, so it may also stop a statement sent after it: that one hears
    /// 57014). False when `id` is unknown or already answered.
    bool cancel(StatementId id);
    /// Transaction helpers: BEGIN, COMMIT, ROLLBACK (a COMMIT of a failed transaction reports ROLLBACK).
    void begin(QueryCallback done) { query("BEGIN", {}, std::move(done)); }
    void commit(QueryCallback done) { query("COMMIT", {}, std::move(done)); }
    void rollback(QueryCallback done) { query("ROLLBACK", {}, std::move(done)); }
    /// Savepoints inside a transaction: SAVEPOINT, RELEASE SAVEPOINT, ROLLBACK TO SAVEPOINT `name` (quoted as an
    /// identifier, so any text is a name and never SQL; a name with a NUL byte is refused with kInvalidArgument).
    void savepoint(std::string_view name, QueryCallback done) { on_savepoint("SAVEPOINT ", name, std::move(done)); }
    void release_savepoint(std::string_view name, QueryCallback done) {
        on_savepoint("RELEASE SAVEPOINT ", name, std::move(done));
    }
    void rollback_to_savepoint(std::string_view name, QueryCallback done) {
        on_savepoint("ROLLBACK TO SAVEPOINT ", name, std::move(done));
    }

    bool pipeline() const { return options_.pipeline; }
    /// Connected, nothing queued.
    bool is_idle() const { return state_ == State::kReady && ops_.empty(); }
    bool is_broken() const { return state_ == State::kBroken; }
    /// Statements queued or running (a timed-out or cancelled one counts until the server ends it).
    std::size_t pending() const { return ops_.size(); }
    /// Inside a transaction block (open or failed), as the server last reported.
    bool in_transaction() const;
    /// Reads what the server sent an idle connection (a shutdown notice, EOF) and says whether it is still
    /// usable: the pool's check on checkout. Breaking here does not call the listener.
    bool check_health();
    void set_listener(Listener listener) { listener_ = std::move(listener); }
    /// Receives NOTIFYs once `LISTEN channel` has run on this connection (use a connection of its own, not a
    /// pooled one: a pool hands connections to others). Notifications arrive whenever the socket is read,
    /// between statements too; the handler may run statements or destroy the connection.
    void set_notification_handler(NotificationHandler handler) { on_notify_ = std::move(handler); }
    /// The server process serving this connection (0 before connecting).
    int backend_pid() const;
    std::size_t prepared_count() const { return prepared_.size(); }

  private:
    enum class State : std::uint8_t { kConnecting, kReady, kBroken };
    struct Op;
    struct CancelLink;

    Connection(net::EventLoop& loop, ConnectOptions options);

    void on_io(std::uint32_t events) override;
    void continue_connect();
    void finish_connect(base::Status status);
    StatementId enqueue(std::unique_ptr<Op> op);
    StatementId enqueue_statement(std::unique_ptr<Op> op);
    StatementId enqueue_copy(std::unique_ptr<Op> op, CopyDirection want);
    StatementId refuse(std::unique_ptr<Op> op, std::string message);
    void pump();
    bool send(Op& op);
    void arm_timer();
    void flush();
    void read_results();
    bool start_copy(Op& op, bool in);
    bool feed_copy_in(Op& op);
    bool drain_copy_out(Op& op);
    void complete_current();
    bool retry_stale_statement(Op& op);
    void forget_prepared(const std::string& statement);
    void on_timer();
    void cancel_on_server(Op& op, const std::string& why);
    void cancel_delivered();
    void break_connection(std::string reason, bool notify);
    void set_events(std::uint32_t events);
    bool deliver_notifications();
    void on_savepoint(std::string_view command, std::string_view name, QueryCallback done);
    static void deliver(Op& op, base::Status status, DbError error);

    net::EventLoop& loop_;
    ConnectOptions options_;
    PGconn* conn_ = nullptr;
    int fd_ = -1;
    std::uint32_t events_ = 0;
    State state_ = State::kConnecting;
    ConnectCallback connect_done_;
    Listener listener_;
    NotificationHandler on_notify_;
    std::deque<std::unique_ptr<Op>> ops_;  // the first in_flight_ are on the wire, oldest first
    std::size_t in_flight_ = 0;
    std::uint64_t statement_counter_ = 0;      // names ss_1, ss_2, ... of prepared statements
    StatementId next_id_ = 0;                  // the last StatementId handed out
    std::size_t cancels_running_ = 0;          // PQcancel requests not finished: nothing new is sent meanwhile
    base::MonoNanos cancel_deadline_ = 0;      // when the newest of them must have finished (else: closed)
    std::shared_ptr<CancelLink> cancel_link_;  // lets a finished cancel request reach us while we live
    std::unordered_map<std::string, std::string> prepared_;  // SQL + parameter types -> statement name
    net::Timer timer_;
    std::shared_ptr<bool> alive_ = std::make_shared<bool>(true);  // callbacks check it: they may destroy us
};

}  // namespace slipstream::store::postgres
