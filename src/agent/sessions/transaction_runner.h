// TransactionRunner: write transactions on either backend, a bounded number at once, never blocking the caller.
#pragma once

#include <cstddef>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "base/result.h"
#include "store/database/database.h"

namespace slipstream::agent::sessions {

class TransactionRunner;

/// The real transaction several Transactions share (group commit): one BEGIN, a SAVEPOINT per member, one COMMIT
/// whose outcome every committed member hears.
struct TransactionGroup {
    std::shared_ptr<store::DbSession> session;
    std::vector<std::function<void(base::Status)>> committed;  // members that committed, waiting for the COMMIT
    std::size_t members = 0;
};

/// One open transaction. Statements run in the order they are called; callbacks run on the database's thread.
/// commit() ends it: its `done` hears the outcome of the COMMIT that makes it durable (see TransactionRunner on
/// group commit); dropping the last reference without commit() rolls it back (to its savepoint: the others of
/// its group are not affected). Made by TransactionRunner::run.
class Transaction {
  public:
    Transaction(std::shared_ptr<TransactionRunner> runner, std::shared_ptr<TransactionGroup> group,
                std::string savepoint);
    ~Transaction();
    Transaction(const Transaction&) = delete;
    Transaction& operator=(const Transaction&) = delete;

    /// One statement written with $1..$n (sql_for adapts it).
    void query(std::string_view sql, store::Params params, store::DbSession::QueryCallback done);
    /// COMMIT; `done` hears its status (a failed commit is rolled back: nothing was kept).
    void commit(std::function<void(base::Status)> done);

  private:
    std::shared_ptr<TransactionRunner> runner_;
    std::shared_ptr<TransactionGroup> group_;
    std::string savepoint_;
    bool ended_ = false;
};

using TransactionWork = std::function<void(base::Result<std::shared_ptr<Transaction>>)>;

/// A transaction's whole work done in one hop on SQLite's write connection (TransactionRunner::run_on_thread): its
/// statements are answered at once, inside a SAVEPOINT of its own in the running group.
class SyncWork {
  public:
    virtual ~SyncWork() = default;
    /// On the connection's thread (statements written with ?n). true keeps the member: finished() then hears the
    /// group's COMMIT. false undoes it alone (its statements are rolled back; it answers its caller itself).
    virtual bool run(store::SyncStatements& connection) = 0;
    /// A kept member: the COMMIT's outcome. Or why run() never ran (the transaction could not begin).
    virtual void finished(base::Status status) = 0;
};

/// Runs at most `slots` transactions at once and queues the rest (FIFO, bounded: past it, kResourceExhausted).
/// Group commit (SQLite): work that waits while a transaction runs joins it when its current member ends (up to
/// kMaxGroup members, each inside a SAVEPOINT of its own, so one member's failure or rollback leaves the others), and
/// one COMMIT makes them all durable: every member that committed is answered after that COMMIT, with its outcome.
/// Under load many writes share one commit (one fsync) instead of paying one each. PostgreSQL runs one member per
/// transaction (concurrent groups could deadlock on each other's rows); its commits overlap across connections.
/// PostgreSQL: each transaction holds a pooled connection of its own (Database::open_session, asynchronous);
/// slots = the smaller of the pool size and max_sessions. SQLite, which has one writer at a time anyway: one
/// slot, on one connection opened at start, so no connection is opened on a request's path. Thread-safe. Holds
/// the Database weakly (its owner decides when it closes): work started after that hears kCancelled.
class TransactionRunner : public std::enable_shared_from_this<TransactionRunner> {
  public:
    static constexpr std::size_t kMaxWaiting = 10'000;
    static constexpr std::size_t kMaxGroup = 64;

    /// Opens SQLite's write connection (blocking: call at start-up). kInvalidArgument for an in-memory SQLite
    /// database (it has a single connection).
    static base::Result<std::shared_ptr<TransactionRunner>> open(const std::shared_ptr<store::Database>& db);

    explicit TransactionRunner(const std::shared_ptr<store::Database>& db);

    /// Begins a transaction and calls `work` with it (on the database's thread), or with the reason it could
    /// not begin (kUnavailable, kResourceExhausted, kTimeout, kCancelled).
    void run(TransactionWork work);
    /// SQLite only: `work` runs as a member of a group like run()'s, but in one hop on the connection's thread
    /// (no hop per statement); consecutive waiting SyncWork runs in the same hop, and so does the COMMIT when
    /// nothing else waits. PostgreSQL: finished(kInvalidArgument) at once.
    void run_on_thread(std::shared_ptr<SyncWork> work);
    store::Backend backend() const { return backend_; }

  private:
    friend class Transaction;
    // Work waiting for the slot or for a group to join: one of the two is set.
    struct Waiting {
        TransactionWork work;
        std::shared_ptr<SyncWork> sync;
    };
    void enqueue(Waiting waiting);
    void start(Waiting waiting);
    void begin(const std::shared_ptr<store::DbSession>& session, TransactionWork work);
    void begin_on_thread(std::shared_ptr<SyncWork> work);
    void start_member(const std::shared_ptr<TransactionGroup>& group, TransactionWork work);
    void start_sync_member(const std::shared_ptr<TransactionGroup>& group, std::shared_ptr<SyncWork> work);
    // On the connection's thread: `first` and the SyncWork waiting after it, then COMMIT or the next async work.
    void run_sync_members(store::SyncStatements& connection, const std::shared_ptr<TransactionGroup>& group,
                          std::shared_ptr<SyncWork> first);
    void member_ended(const std::shared_ptr<TransactionGroup>& group);  // next waiting work joins, or COMMIT
    void finish(const std::shared_ptr<TransactionGroup>& group);
    void answer(const std::shared_ptr<TransactionGroup>& group, const base::Status& status);  // after COMMIT
    bool next_member(const std::shared_ptr<TransactionGroup>& group, Waiting* next);
    void release();  // a transaction ended: its slot goes to the next waiting one
    bool sqlite() const { return held_ != nullptr; }

    std::weak_ptr<store::Database> db_;
    store::Backend backend_;
    std::shared_ptr<store::DbSession> held_;  // SQLite only
    std::mutex mutex_;
    std::deque<Waiting> waiting_;
    std::size_t slots_ = 1;
    std::size_t open_ = 0;
};

}  // namespace slipstream::agent::sessions
