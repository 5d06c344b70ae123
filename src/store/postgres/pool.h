// Pool: PostgreSQL connections of one event loop: min/max size, bounded acquire wait, broken ones replaced.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <list>
#include <memory>
#include <string>
#include <vector>

#include "base/result.h"
#include "net/event_loop.h"
#include "net/timer.h"
#include "store/postgres/connection.h"
#include "store/worker_pool.h"

namespace slipstream::store::postgres {

struct PoolOptions {
    std::string conninfo;                             // libpq connection string or URI (PG* env fills the rest)
    std::size_t min_size = 1;                         // opened at start
    std::size_t max_size = 10;                        // never more connections than this (at least 1)
    std::int64_t acquire_timeout_ns = 5'000'000'000;  // a waiter hears kTimeout after this
    std::int64_t connect_timeout_ns = 5'000'000'000;  // per connection attempt
    /// Connections in pipeline mode (connection.h): a Lease may queue many statements that share round trips.
    bool pipeline = false;
    /// Prepared statements each connection keeps (ConnectOptions::max_prepared).
    std::size_t max_prepared = 256;
    /// An idle connection beyond min_size is closed after this long unused (0: never).
    std::int64_t idle_timeout_ns = 300'000'000'000;
    /// A connection is closed (and replaced up to min_size) once this old, when it is next idle (0: never).
    std::int64_t max_lifetime_ns = 3'600'000'000'000;
};

class Pool;

/// Stops one statement a Pool runs (query, fetch_json, copy_in, copy_out return it). cancel(): the statement's
/// callback hears kCancelled at once, from inside the call, unless it was answered already: one waiting for a
/// connection stops waiting, one queued on its connection is taken off the queue, one on the wire is cancelled
/// on the server (Connection::cancel: the connection goes back to the pool once the statement ended). A cancelled
/// statement is never retried. Loop thread only; a no-op once the statement was answered (also after the pool is
/// gone, which answers everything first). Holding it keeps nothing else alive.
class StatementCancel {
  public:
    void cancel();
    /// A COPY whose source or sink answered copy_data_pending() goes on (Connection::resume_copy); a no-op
    /// before it reached a connection (its first pull comes then) and after it was answered. On the pool's loop.
    void resume_copy() {
        if (resume_) resume_();
    }
    /// cancel() was called.
    bool requested() const { return requested_; }

  private:
    friend class Pool;
    bool requested_ = false;
    std::function<void()> stop_;    // what cancelling does at this stage; empty once the statement was answered
    std::function<void()> resume_;  // on a connection: resume_copy there
    std::uint64_t answers_ = 0;     // connection answers so far: one that came from inside the call is seen
};

/// A connection checked out of a Pool; goes back when destroyed (a connection left inside a transaction is
/// rolled back first; a broken one is dropped). Must not outlive its Pool. Loop thread only. Move-only.
class Lease {
  public:
    Lease() = default;
    Lease(Lease&& other) noexcept : pool_(other.pool_), conn_(other.conn_) { other.conn_ = nullptr; }
    Lease& operator=(Lease&& other) noexcept;
    Lease(const Lease&) = delete;
    Lease& operator=(const Lease&) = delete;
    ~Lease() { reset(); }

    Connection& operator*() const { return *conn_; }
    Connection* operator->() const { return conn_; }
    explicit operator bool() const { return conn_ != nullptr; }
    /// Gives the connection back now.
    void reset();

  private:
    friend class Pool;
    Lease(Pool* pool, Connection* conn) : pool_(pool), conn_(conn) {}
    // Hands the connection to the caller, who must give it back with Pool::release.
    Connection* detach() {
        Connection* c = conn_;
        conn_ = nullptr;
        return c;
    }
    Pool* pool_ = nullptr;
    Connection* conn_ = nullptr;
};

/// Connections to one database for one event loop. A connection found broken (by its own socket, or by the
/// health check on checkout) is dropped and a new one opened when someone waits; a waiter never waits longer
/// than acquire_timeout_ns; a failed connection attempt answers one waiter with kUnavailable at once. All
/// methods: loop thread only. Destroy the pool on the loop thread after every Lease is gone; waiters then hear
/// kCancelled.
class Pool {
  public:
    using AcquireCallback = std::function<void(base::Result<Lease> lease)>;

    struct Stats {
        std::size_t open = 0;        // connections, in any state
        std::size_t idle = 0;        // ready and not checked out
        std::size_t connecting = 0;  // attempts in progress
        std::size_t waiting = 0;     // acquire() calls not answered yet
        std::uint64_t dropped = 0;   // broken connections dropped so far
        std::uint64_t retired = 0;   // healthy ones closed for idleness or age
    };

    /// Opens min_size connections. `cancel_workers` (may be null; must outlive the pool) runs the cancel
    /// requests of timed-out statements (connection.h).
    Pool(net::EventLoop& loop, PoolOptions options, WorkerPool* cancel_workers = nullptr);
    ~Pool();
    Pool(const Pool&) = delete;
    Pool& operator=(const Pool&) = delete;

    /// Calls `done` with a Lease (at once when a healthy connection is idle), kTimeout after acquire_timeout_ns,
    /// or kUnavailable when a connection attempt made for it fails.
    void acquire(AcquireCallback done);
    /// acquire() + Connection::query + release. options.idempotent: a lost connection is retried once. The
    /// handle cancels it (StatementCancel); ignoring it is fine.
    std::shared_ptr<StatementCancel> query(std::string sql, Params params, Connection::QueryCallback done,
                                           QueryOptions options = {});
    /// acquire() + Connection::fetch_json + release, with the same retry rule.
    std::shared_ptr<StatementCancel> fetch_json(std::string sql, Params params, Connection::JsonCallback done,
                                                QueryOptions options = {});
    /// acquire() + Connection::copy_in + release. Never retried (the source has been consumed); on a pipeline-mode
    /// pool it is refused (kInvalidArgument).
    std::shared_ptr<StatementCancel> copy_in(std::string copy_sql, CopySource source, CopyCallback done,
                                             QueryOptions options = {});
    /// acquire() + Connection::copy_out + release. Never retried (the sink has seen rows).
    std::shared_ptr<StatementCancel> copy_out(std::string copy_sql, CopySink sink, CopyCallback done,
                                              QueryOptions options = {});

    Stats stats() const;
    const PoolOptions& options() const { return options_; }

  private:
    friend class Lease;
    enum class SlotState : std::uint8_t { kConnecting, kIdle, kLeased, kDraining };
    struct Slot {
        std::unique_ptr<Connection> conn;
        SlotState state;
        base::MonoNanos created = 0;
        base::MonoNanos idle_since = 0;
    };
    struct Waiter {
        AcquireCallback done;
        net::Timer timer;
        std::uint64_t id = 0;
    };
    using CancelPtr = std::shared_ptr<StatementCancel>;

    Slot* find(const Connection* conn);
    void open_one();
    void grow();
    void on_connected(Connection& conn, base::Status status);
    void on_connection_event(Connection& conn);
    void hand_out(Slot& slot);
    void release(Connection* conn);
    // Forgets `conn`; destroys it now, or at the end of the iteration when we may be inside its callbacks.
    void drop(Connection* conn, bool now = false);
    bool past_lifetime(const Slot& slot) const;
    void reap();
    // acquire(); the id of the waiter it queued, or 0 when `done` has run already.
    std::uint64_t acquire_or_wait(AcquireCallback done);
    // acquire() whose wait `handle` can end; `done` may have run already when it returns.
    void acquire_for(const CancelPtr& handle, AcquireCallback done);
    // copy_in / copy_out: acquire, start the COPY with `start`, release; cancellable through the handle.
    template <typename Stream>
    std::shared_ptr<StatementCancel> copy(std::string copy_sql, Stream stream, CopyCallback done, QueryOptions options,
                                          Connection::StatementId (Connection::*start)(std::string, Stream,
                                                                                       CopyCallback, QueryOptions));
    void cancel_wait(std::uint64_t waiter);
    void run_with_retry(std::string sql, Params params, Connection::QueryCallback done, QueryOptions options,
                        bool retried, CancelPtr handle);
    void json_with_retry(std::string sql, Params params, Connection::JsonCallback done, QueryOptions options,
                         bool retried, CancelPtr handle);

    net::EventLoop& loop_;
    PoolOptions options_;
    WorkerPool* cancel_workers_;
    std::vector<std::unique_ptr<Slot>> slots_;
    std::list<Waiter> waiters_;
    std::uint64_t last_waiter_ = 0;
    std::uint64_t dropped_ = 0;
    std::uint64_t retired_ = 0;
    net::Timer reaper_;  // closes idle and aged connections
    bool closing_ = false;
};

}  // namespace slipstream::store::postgres
