// DecisionWriter: the flusher loop and the batched INSERT.
#include "agent/decide/decision_writer.h"

#include <chrono>
#include <future>

#include "agent/decide/decide_store.h"
#include "base/log.h"

namespace slipstream::agent::decide {

namespace {

// Two statement shapes only (32 rows, and 1 row for the rest), so both stay prepared in the connection's cache:
// a statement of a new row count is prepared again, and SQLite's prepare is quadratic in the number of ?NNN
// parameters (17 per row).
constexpr std::size_t kRowsPerInsert = 32;

// Runs the INSERTs of `rows` from `next` on in order inside `tx`, then commits.
void insert_from(std::shared_ptr<sessions::Transaction> tx, std::shared_ptr<const std::vector<DecisionRow>> rows,
                 std::size_t next, std::function<void(base::Status)> done) {
    if (next >= rows->size()) return tx->commit(std::move(done));
    const std::size_t n = rows->size() - next >= kRowsPerInsert ? kRowsPerInsert : 1;
    store::Params params;
    for (std::size_t i = next; i < next + n; ++i)
        for (const store::Value& v : (*rows)[i].params)
            params.push_back(v);  // copied: pending() may read the rows until they are committed
    tx->query(insert_decisions_sql(n), std::move(params), [tx, rows, next, n, done](store::QueryResult r) {
        if (!r.is_ok()) return done(r.status());
        insert_from(tx, rows, next + n, done);
    });
}

}  // namespace

DecisionWriter::DecisionWriter(std::shared_ptr<sessions::TransactionRunner> runner, std::size_t capacity,
                               std::int64_t flush_ms, std::size_t batch)
    : runner_(std::move(runner)), capacity_(capacity), flush_ms_(flush_ms), batch_(batch == 0 ? 1 : batch) {}

DecisionWriter::~DecisionWriter() {
    stop();
}

void DecisionWriter::start() {
    std::lock_guard<std::mutex> lock(mutex_);
    if (started_) return;
    started_ = true;
    thread_ = std::thread([this] { loop(); });
}

bool DecisionWriter::push(DecisionRow row) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (stopping_ || queue_.size() >= capacity_) {
        ++lost_;
        return false;
    }
    ids_.insert(row.id);
    queue_.push_back(std::move(row));
    if (queue_.size() * 2 >= capacity_) wake_.notify_one();
    return true;
}

bool DecisionWriter::pending(const std::string& id) {
    std::lock_guard<std::mutex> lock(mutex_);
    return ids_.count(id) > 0;
}

void DecisionWriter::after_flush(std::function<void()> fn) {
    std::unique_lock<std::mutex> lock(mutex_);
    if (ids_.empty()) {
        lock.unlock();
        return fn();
    }
    waiters_.push_back(std::move(fn));
    wake_.notify_one();
}

std::uint64_t DecisionWriter::lost() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return lost_;
}

std::size_t DecisionWriter::queued() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return queue_.size();
}

std::vector<DecisionRow> DecisionWriter::pending(const std::function<bool(const DecisionRow&)>& keep) const {
    std::lock_guard<std::mutex> lock(mutex_);
    std::vector<DecisionRow> out;
    for (const DecisionRow& row : queue_)
        if (keep(row)) out.push_back(row);
    if (inflight_)
        for (const DecisionRow& row : *inflight_)
            if (keep(row)) out.push_back(row);
    return out;
}

void DecisionWriter::stop() {
    {
        std::lock_guard<std::mutex> lock(mutex_);
        if (stopping_) return;
        stopping_ = true;
    }
    wake_.notify_all();
    if (thread_.joinable()) thread_.join();
}

void DecisionWriter::loop() {
    std::unique_lock<std::mutex> lock(mutex_);
    while (true) {
        wake_.wait_for(lock, std::chrono::milliseconds(flush_ms_),
                       [this] { return stopping_ || !waiters_.empty() || queue_.size() * 2 >= capacity_; });
        flush(lock);
        if (stopping_ && queue_.empty()) return;
    }
}

void DecisionWriter::flush(std::unique_lock<std::mutex>& lock) {
    // The rows queued now, in batches; rows queued meanwhile wait for the next flush (so a waiter is answered
    // even while decisions keep coming).
    std::size_t left = queue_.size();
    std::vector<std::function<void()>> waiters = std::move(waiters_);
    waiters_.clear();
    while (left > 0) {
        const std::size_t n = left < batch_ ? left : batch_;
        left -= n;
        write_batch(lock, n);
    }
    lock.unlock();
    for (auto& fn : waiters)
        fn();
    lock.lock();
}

void DecisionWriter::write_batch(std::unique_lock<std::mutex>& lock, std::size_t n) {
    auto rows = std::make_shared<std::vector<DecisionRow>>(std::make_move_iterator(queue_.begin()),
                                                           std::make_move_iterator(queue_.begin() + n));
    queue_.erase(queue_.begin(), queue_.begin() + n);
    inflight_ = rows;
    lock.unlock();
    std::promise<base::Status> done;
    runner_->run([rows, &done](base::Result<std::shared_ptr<sessions::Transaction>> begun) {
        if (!begun.is_ok()) return done.set_value(begun.status());
        insert_from(std::move(begun).value(), rows, 0, [&done](base::Status s) { done.set_value(std::move(s)); });
    });
    base::Status written = done.get_future().get();
    lock.lock();
    inflight_.reset();
    for (const DecisionRow& row : *rows)
        ids_.erase(row.id);
    if (!written.is_ok()) {
        lost_ += rows->size();
        base::log_message(base::LogLevel::kWarn, "decide: " + std::to_string(rows->size()) +
                                                     " shadow decisions not written: " + written.to_string());
    }
}

}  // namespace slipstream::agent::decide
