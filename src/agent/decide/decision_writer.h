// DecisionWriter: frozen-mode (shadow) decisions written behind: a bounded queue, one transaction per flush on a
// thread of its own, and a count of what the bound dropped.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <unordered_set>
#include <vector>

#include "agent/sessions/transaction_runner.h"
#include "store/value.h"

namespace slipstream::agent::decide {

/// One decide_decisions row, in kDecisionColumns order (decide_store.h).
struct DecisionRow {
    std::string id;
    store::Params params;
};

/// Thread-safe. push() never blocks and never touches the disk: the decision's answer does not wait for a write
/// (no fsync on the hot path). A full queue drops the row and counts it (lost()). The flusher writes what is
/// queued every `flush_ms`, sooner when half full, in transactions of at most `batch` rows each (one after the
/// other: a COMMIT's work on the shared write connection is bounded, and writes waiting on a request's path get
/// the connection between two batches); a failed batch is logged, counted as lost and not retried (shadow
/// decisions are best effort). stop() writes what is queued.
class DecisionWriter {
  public:
    DecisionWriter(std::shared_ptr<sessions::TransactionRunner> runner, std::size_t capacity, std::int64_t flush_ms,
                   std::size_t batch);
    ~DecisionWriter();
    DecisionWriter(const DecisionWriter&) = delete;
    DecisionWriter& operator=(const DecisionWriter&) = delete;

    void start();
    /// False when the queue is full (the row is dropped and counted) or the writer stopped.
    bool push(DecisionRow row);
    /// Whether the decision is queued or being written (a reward for it waits for the flush).
    bool pending(const std::string& id);
    /// Runs `fn` (on the flusher's thread or the database's) once the rows queued now were written or dropped.
    void after_flush(std::function<void()> fn);
    /// Writes what is queued and stops the thread (blocking; never on a database thread).
    void stop();
    std::uint64_t lost() const;
    /// Rows queued now (not yet handed to a flush).
    std::size_t queued() const;
    /// Copies of the rows queued or being written (not yet committed) that `keep` accepts: with the rows in the
    /// database read after this call, every decision answered before it is seen at least once.
    std::vector<DecisionRow> pending(const std::function<bool(const DecisionRow&)>& keep) const;

  private:
    void loop();
    void flush(std::unique_lock<std::mutex>& lock);
    // Writes the first `n` queued rows in one transaction (the lock is released meanwhile).
    void write_batch(std::unique_lock<std::mutex>& lock, std::size_t n);

    std::shared_ptr<sessions::TransactionRunner> runner_;
    const std::size_t capacity_;
    const std::int64_t flush_ms_;
    const std::size_t batch_;
    mutable std::mutex mutex_;
    std::condition_variable wake_;
    std::deque<DecisionRow> queue_;
    std::shared_ptr<const std::vector<DecisionRow>> inflight_;  // the rows of the flush under way
    std::unordered_set<std::string> ids_;                       // queued or in flight
    std::vector<std::function<void()>> waiters_;
    std::uint64_t lost_ = 0;
    bool stopping_ = false;
    bool started_ = false;
    std::thread thread_;
};

}  // namespace slipstream::agent::decide
