// WriteBehind: the `buffered` durability mode's event log. Appends are answered once queued in memory and
// written in batches, one transaction per flush, at least every flush interval.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "agent/sessions/session_error.h"
#include "agent/sessions/session_types.h"
#include "agent/sessions/transaction_runner.h"
#include "store/database/database.h"

namespace slipstream::agent::sessions {

struct WriteBehindOptions {
    std::int64_t flush_ms = 50;              // a flush starts at most this long after the previous one ended
    std::size_t max_queued_events = 10'000;  // acknowledged but not committed; past it, kBusy (HTTP 503)
};

/// Thread-safe. A session's seq range is given in memory from its cached newest seq (the first append to a
/// session this process has not seen reads its row, and a key not seen since then is looked up in the
/// database), so the answer is the same range a durable append would give. A flush writes every queued event
/// and key in one transaction, each session's row guarded by the seq the cache expects (a session deleted,
/// expired or written by another process in between loses its queued events; they are logged). The process must
/// be the only writer of its sessions' events (one server on SQLite; with PostgreSQL and several replicas, use
/// durable). A crash loses what was queued: at most one flush interval (plus the flush in progress) of
/// acknowledged appends, always the newest of each session, so what survives is a prefix of its log.
class WriteBehind : public std::enable_shared_from_this<WriteBehind> {
  public:
    WriteBehind(std::shared_ptr<store::Database> db, std::shared_ptr<TransactionRunner> runner,
                WriteBehindOptions options);
    ~WriteBehind();
    WriteBehind(const WriteBehind&) = delete;
    WriteBehind& operator=(const WriteBehind&) = delete;

    /// Starts the flusher thread.
    void start();
    /// Flushes everything queued (a few tries when a flush fails) and joins the flusher. Blocking: never on a
    /// database thread. Appends after it are refused (kUnavailable).
    void stop();

    /// `events` are checked and compacted already; `now` is the append's time (epoch ms). Answers at once when the
    /// session is cached, else after reading its row (on the database's thread).
    void append(std::string owner, std::string id, std::vector<NewEvent> events, std::string key, std::int64_t now,
                std::uint64_t max_events, std::function<void(SessionResult<AppendResult>)> done);

    /// What a reader must add to the database's answer: the session's events queued (or being written) with
    /// seq > `after`, and its newest seq (0 when nothing is queued). Take it before reading the database.
    struct Pending {
        std::int64_t last_seq = 0;
        std::vector<EventRecord> events;
    };
    Pending pending(const std::string& id, std::int64_t after) const;

    /// Drops the cached session(s) and what they had queued (deleted sessions).
    void forget(const std::string& id);
    void forget_owner(const std::string& owner);

    std::size_t queued_events() const;
    /// Acknowledged events dropped at a flush because their session was gone or written elsewhere, since start.
    std::uint64_t dropped_events() const { return dropped_.load(std::memory_order_relaxed); }
    std::int64_t flush_ms() const { return options_.flush_ms; }

  private:
    struct Entry {
        std::string owner;
        std::int64_t ttl_ms = 0;
        std::int64_t expires_at = 0;
        std::int64_t committed_seq = 0;                              // the row's last_seq in the database
        std::int64_t last_seq = 0;                                   // with the queued events
        std::int64_t updated_at = 0;                                 // time of the newest queued append
        std::vector<EventRecord> queued;                             // seq committed_seq+1.., in order
        std::size_t events_in_flight = 0;                            // the first ones of `queued`, being written
        std::unordered_map<std::string, AppendResult> keys;          // every key seen since the entry was loaded
        std::vector<std::pair<std::string, AppendResult>> new_keys;  // keys to write
        std::size_t keys_in_flight = 0;
    };
    struct Job;
    struct Batch;

    void attempt(const std::shared_ptr<Job>& job);
    void load(const std::shared_ptr<Job>& job, std::uint64_t epoch);
    void check_key(const std::shared_ptr<Job>& job);
    SessionResult<AppendResult> append_locked(Entry& entry, Job& job);
    void query(std::string_view sql, store::Params params, store::Database::QueryCallback done);

    void run_flusher();
    /// One flush: false when it failed (the batch stays queued).
    bool flush_once();
    void finish_flush(const Batch& batch, bool ok);

    std::shared_ptr<store::Database> db_;
    std::shared_ptr<TransactionRunner> runner_;
    WriteBehindOptions options_;

    mutable std::mutex mutex_;
    std::condition_variable wake_;
    std::unordered_map<std::string, Entry> entries_;
    std::size_t queued_ = 0;  // events queued in every entry
    std::atomic<std::uint64_t> dropped_{0};
    std::uint64_t epoch_ = 0;  // bumped when an entry is dropped: a load started before must read again
    bool stopping_ = false;
    bool stopped_ = false;
    std::thread flusher_;
};

}  // namespace slipstream::agent::sessions
