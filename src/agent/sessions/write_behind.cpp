// WriteBehind: buffered appends (queued in memory, one transaction per flush).
#include "agent/sessions/write_behind.h"

#include <algorithm>
#include <chrono>
#include <future>

#include "agent/sessions/database_thread.h"
#include "agent/sessions/session_rows.h"
#include "agent/sessions/sql_text.h"
#include "base/log.h"

namespace slipstream::agent::sessions {

namespace {

constexpr std::size_t kRowsPerInsert = 200;    // 3 or 4 parameters a row: well under SQLite's 32,766
constexpr std::size_t kMaxIdleEntries = 4096;  // cached sessions with nothing queued kept past a flush
constexpr int kLoadTries = 5;

std::string values_sql(std::string_view head, std::size_t rows, std::size_t per_row) {
    std::string sql(head);
    for (std::size_t i = 0; i < rows; ++i) {
        sql += i == 0 ? "(" : ", (";
        for (std::size_t c = 0; c < per_row; ++c) {
            if (c > 0) sql += ", ";
            sql += "$" + std::to_string(1 + i * per_row + c);
        }
        sql += ")";
    }
    return sql;
}

}  // namespace

struct WriteBehind::Job {
    std::string owner;
    std::string id;
    std::vector<NewEvent> events;
    std::string key;
    std::int64_t now = 0;
    std::uint64_t max_events = 0;
    std::function<void(SessionResult<AppendResult>)> done;
    bool key_checked = false;  // the key is not in the database (looked up after the entry was loaded)
    int loads = 0;
};

// What one flush writes: per session, its row's expected and new last_seq, the events and the keys.
struct WriteBehind::Batch {
    struct Item {
        std::string id;
        std::int64_t expected_seq = 0;
        std::int64_t new_seq = 0;
        std::int64_t updated_at = 0;
        std::vector<EventRecord> events;
        std::vector<std::pair<std::string, AppendResult>> keys;
        bool applied = false;
    };
    std::vector<Item> items;
    std::shared_ptr<Transaction> tx;
    std::size_t item = 0;
    // The statements still to run for the current item, built when it starts.
    std::vector<std::pair<std::string, store::Params>> statements;
    std::size_t statement = 0;
    std::function<void(bool)> finished;
};

WriteBehind::WriteBehind(std::shared_ptr<store::Database> db, std::shared_ptr<TransactionRunner> runner,
                         WriteBehindOptions options)
    : db_(std::move(db)), runner_(std::move(runner)), options_(options) {}

WriteBehind::~WriteBehind() {
    {
        std::lock_guard lock(mutex_);
        stopping_ = true;
    }
    wake_.notify_all();
    if (flusher_.joinable()) flusher_.join();
}

void WriteBehind::start() {
    flusher_ = std::thread([this] { run_flusher(); });
}

void WriteBehind::stop() {
    {
        std::lock_guard lock(mutex_);
        if (stopped_) return;
        stopping_ = true;
    }
    wake_.notify_all();
    if (flusher_.joinable()) flusher_.join();
    std::lock_guard lock(mutex_);
    stopped_ = true;
    if (queued_ > 0)
        base::log_message(base::LogLevel::kError,
                          "sessions: " + std::to_string(queued_) + " buffered events could not be written at stop");
}

void WriteBehind::query(std::string_view sql, store::Params params, store::Database::QueryCallback done) {
    (void)db_->query(sql_for(db_->backend(), sql), std::move(params), [done = std::move(done)](store::QueryResult r) {
        mark_database_thread();
        done(std::move(r));
    });
}

void WriteBehind::append(std::string owner, std::string id, std::vector<NewEvent> events, std::string key,
                         std::int64_t now, std::uint64_t max_events,
                         std::function<void(SessionResult<AppendResult>)> done) {
    auto job = std::make_shared<Job>();
    job->owner = std::move(owner);
    job->id = std::move(id);
    job->events = std::move(events);
    job->key = std::move(key);
    job->now = now;
    job->max_events = max_events;
    job->done = std::move(done);
    attempt(job);
}

void WriteBehind::attempt(const std::shared_ptr<Job>& job) {
    std::unique_lock lock(mutex_);
    if (stopping_) {
        lock.unlock();
        return job->done(SessionError::unavailable("the session store is stopping"));
    }
    auto it = entries_.find(job->id);
    if (it == entries_.end()) {
        const std::uint64_t epoch = epoch_;
        lock.unlock();
        return load(job, epoch);
    }
    if (!job->key.empty() && !job->key_checked && it->second.keys.count(job->key) == 0) {
        lock.unlock();
        return check_key(job);
    }
    SessionResult<AppendResult> result = append_locked(it->second, *job);
    const bool wake = queued_ * 2 >= options_.max_queued_events;
    lock.unlock();
    if (wake) wake_.notify_one();
    job->done(std::move(result));
}

SessionResult<AppendResult> WriteBehind::append_locked(Entry& entry, Job& job) {
    if (entry.expires_at <= job.now) return SessionError::not_found();
    if (entry.owner != job.owner) return SessionError::forbidden();
    if (!job.key.empty()) {
        auto known = entry.keys.find(job.key);
        if (known != entry.keys.end()) {
            AppendResult replay = known->second;
            replay.replayed = true;
            return replay;
        }
    }
    const auto n = static_cast<std::int64_t>(job.events.size());
    if (entry.last_seq + n > static_cast<std::int64_t>(job.max_events))
        return SessionError::over_limit(
            "events_per_session", job.max_events,
            "the session would hold more than " + std::to_string(job.max_events) + " events");
    if (queued_ + job.events.size() > options_.max_queued_events)
        return SessionError::busy(
            "the session write queue is full (" + std::to_string(options_.max_queued_events) + " events); try again",
            std::max<std::int64_t>(1, (options_.flush_ms + 999) / 1000));
    const AppendResult range{entry.last_seq + 1, entry.last_seq + n, false};
    for (std::size_t i = 0; i < job.events.size(); ++i)
        entry.queued.push_back(EventRecord{range.first_seq + static_cast<std::int64_t>(i),
                                           std::move(job.events[i].role), std::move(job.events[i].content_json),
                                           job.now});
    entry.last_seq = range.last_seq;
    entry.updated_at = job.now;
    entry.expires_at = job.now + entry.ttl_ms;
    queued_ += job.events.size();
    if (!job.key.empty()) {
        entry.keys.emplace(job.key, range);
        entry.new_keys.emplace_back(job.key, range);
    }
    return range;
}

// The session's row, cached; then the append again.
void WriteBehind::load(const std::shared_ptr<Job>& job, std::uint64_t epoch) {
    if (++job->loads > kLoadTries) return job->done(SessionError::unavailable("the session cache keeps changing"));
    auto self = shared_from_this();
    query("SELECT owner, last_seq, ttl_ms, expires_at FROM agent_sessions WHERE id = $1 AND expires_at > $2",
          {job->id, job->now}, [self, job, epoch](store::QueryResult r) {
              if (!r.is_ok()) return job->done(error_from_status(r.status()));
              if (r->row_count() == 0) return job->done(SessionError::not_found());
              if (r->text(0, 0) != job->owner) return job->done(SessionError::forbidden());
              {
                  std::lock_guard lock(self->mutex_);
                  if (self->epoch_ == epoch && self->entries_.count(job->id) == 0) {
                      Entry& e = self->entries_[job->id];
                      e.owner = job->owner;
                      e.committed_seq = e.last_seq = int_cell(r.value(), 0, 1);
                      e.ttl_ms = int_cell(r.value(), 0, 2);
                      e.expires_at = int_cell(r.value(), 0, 3);
                  }
              }
              job->key_checked = false;  // what the database holds is read after the entry
              self->attempt(job);
          });
}

// A key not seen since the entry was loaded: an append before that (committed) may have used it.
void WriteBehind::check_key(const std::shared_ptr<Job>& job) {
    auto self = shared_from_this();
    query("SELECT first_seq, last_seq FROM agent_session_appends WHERE session_id = $1 AND idempotency_key = $2",
          {job->id, job->key}, [self, job](store::QueryResult r) {
              if (!r.is_ok()) return job->done(error_from_status(r.status()));
              if (r->row_count() > 0)
                  return job->done(AppendResult{int_cell(r.value(), 0, 0), int_cell(r.value(), 0, 1), true});
              job->key_checked = true;
              self->attempt(job);
          });
}

WriteBehind::Pending WriteBehind::pending(const std::string& id, std::int64_t after) const {
    Pending p;
    std::lock_guard lock(mutex_);
    auto it = entries_.find(id);
    if (it == entries_.end() || it->second.queued.empty()) return p;
    p.last_seq = it->second.last_seq;
    for (const EventRecord& e : it->second.queued)
        if (e.seq > after) p.events.push_back(e);
    return p;
}

void WriteBehind::forget(const std::string& id) {
    std::lock_guard lock(mutex_);
    auto it = entries_.find(id);
    if (it == entries_.end()) return;
    queued_ -= it->second.queued.size();
    entries_.erase(it);
    ++epoch_;
}

void WriteBehind::forget_owner(const std::string& owner) {
    std::lock_guard lock(mutex_);
    for (auto it = entries_.begin(); it != entries_.end();) {
        if (it->second.owner == owner) {
            queued_ -= it->second.queued.size();
            it = entries_.erase(it);
        } else {
            ++it;
        }
    }
    ++epoch_;
}

std::size_t WriteBehind::queued_events() const {
    std::lock_guard lock(mutex_);
    return queued_;
}

void WriteBehind::run_flusher() {
    const auto interval = std::chrono::milliseconds(options_.flush_ms);
    int failures_at_stop = 0;
    for (;;) {
        bool stopping = false;
        {
            std::unique_lock lock(mutex_);
            wake_.wait_for(lock, interval, [this] { return stopping_ || queued_ * 2 >= options_.max_queued_events; });
            stopping = stopping_;
        }
        const bool ok = flush_once();
        if (stopping) {
            std::lock_guard lock(mutex_);
            if (queued_ == 0 || (!ok && ++failures_at_stop >= 3)) return;
            continue;
        }
        if (!ok) std::this_thread::sleep_for(interval);
    }
}

bool WriteBehind::flush_once() {
    auto batch = std::make_shared<Batch>();
    {
        std::lock_guard lock(mutex_);
        for (auto& [id, e] : entries_) {
            if (e.queued.empty() && e.new_keys.empty()) continue;
            Batch::Item item;
            item.id = id;
            item.expected_seq = e.committed_seq;
            item.new_seq = e.queued.empty() ? e.committed_seq : e.queued.back().seq;
            item.updated_at = e.updated_at;
            item.events = e.queued;
            item.keys = e.new_keys;
            e.events_in_flight = e.queued.size();
            e.keys_in_flight = e.new_keys.size();
            batch->items.push_back(std::move(item));
        }
    }
    if (batch->items.empty()) return true;

    auto outcome = std::make_shared<std::promise<bool>>();
    std::future<bool> flushed = outcome->get_future();
    batch->finished = [outcome](bool result) { outcome->set_value(result); };  // the transaction drops with batch

    // Runs the batch's statements one after the other (each after the previous one's answer), then COMMIT.
    struct Step {
        static void next(const std::shared_ptr<Batch>& b) {
            if (b->statement < b->statements.size()) {
                auto& [sql, params] = b->statements[b->statement++];
                b->tx->query(sql, std::move(params), [b](store::QueryResult r) {
                    if (!r.is_ok()) {
                        base::log_message(base::LogLevel::kWarn,
                                          "sessions: a buffered flush failed: " + r.status().to_string());
                        return b->finished(false);
                    }
                    next(b);
                });
                return;
            }
            if (b->item < b->items.size()) return start_item(b);
            b->tx->commit([b](base::Status s) {
                if (!s.is_ok())
                    base::log_message(base::LogLevel::kWarn, "sessions: a buffered flush failed: " + s.to_string());
                b->finished(s.is_ok());
            });
        }
        // The row first: when it is gone or moved on, the item's events are not written.
        static void start_item(const std::shared_ptr<Batch>& b) {
            Batch::Item& item = b->items[b->item++];
            b->tx->query(
                "UPDATE agent_sessions SET last_seq = $3, updated_at = $4, expires_at = $4 + ttl_ms WHERE id = $1 "
                "AND last_seq = $2 RETURNING id",
                {item.id, item.expected_seq, item.new_seq, item.updated_at}, [b, &item](store::QueryResult r) {
                    if (!r.is_ok()) return b->finished(false);
                    b->statements.clear();
                    b->statement = 0;
                    item.applied = r->row_count() > 0;
                    if (item.applied) {
                        for (std::size_t i = 0; i < item.events.size(); i += kRowsPerInsert) {
                            const std::size_t n = std::min(kRowsPerInsert, item.events.size() - i);
                            store::Params p;
                            p.reserve(5 * n);
                            for (std::size_t k = i; k < i + n; ++k) {
                                EventRecord& e = item.events[k];
                                p.emplace_back(item.id);
                                p.emplace_back(e.seq);
                                p.emplace_back(std::move(e.role));
                                p.emplace_back(std::move(e.content_json));
                                p.emplace_back(e.created_at_ms);
                            }
                            b->statements.emplace_back(
                                values_sql("INSERT INTO agent_session_events (session_id, seq, role, content, "
                                           "created_at) VALUES ",
                                           n, 5),
                                std::move(p));
                        }
                        for (std::size_t i = 0; i < item.keys.size(); i += kRowsPerInsert) {
                            const std::size_t n = std::min(kRowsPerInsert, item.keys.size() - i);
                            store::Params p;
                            p.reserve(4 * n);
                            for (std::size_t k = i; k < i + n; ++k) {
                                p.emplace_back(item.id);
                                p.emplace_back(item.keys[k].first);
                                p.emplace_back(item.keys[k].second.first_seq);
                                p.emplace_back(item.keys[k].second.last_seq);
                            }
                            b->statements.emplace_back(
                                values_sql("INSERT INTO agent_session_appends (session_id, idempotency_key, first_seq, "
                                           "last_seq) VALUES ",
                                           n, 4),
                                std::move(p));
                        }
                    }
                    next(b);
                });
        }
    };

    runner_->run([batch](base::Result<std::shared_ptr<Transaction>> tx) {
        mark_database_thread();
        if (!tx.is_ok()) {
            base::log_message(base::LogLevel::kWarn, "sessions: a buffered flush failed: " + tx.status().to_string());
            return batch->finished(false);
        }
        batch->tx = std::move(tx).value();
        Step::next(batch);
    });
    const bool ok = flushed.get();
    finish_flush(*batch, ok);
    return ok;
}

void WriteBehind::finish_flush(const Batch& batch, bool ok) {
    std::lock_guard lock(mutex_);
    for (const Batch::Item& item : batch.items) {
        auto it = entries_.find(item.id);
        if (it == entries_.end()) continue;  // forgotten meanwhile (deleted)
        Entry& e = it->second;
        if (!ok) {
            e.events_in_flight = e.keys_in_flight = 0;
            continue;
        }
        if (!item.applied) {
            dropped_.fetch_add(e.queued.size(), std::memory_order_relaxed);
            if (e.events_in_flight > 0)
                base::log_message(base::LogLevel::kWarn, "sessions: " + std::to_string(e.events_in_flight) +
                                                             " buffered events of a session that is gone or was "
                                                             "written elsewhere were dropped");
            queued_ -= e.queued.size();
            entries_.erase(it);
            ++epoch_;
            continue;
        }
        e.queued.erase(e.queued.begin(), e.queued.begin() + static_cast<std::ptrdiff_t>(e.events_in_flight));
        e.new_keys.erase(e.new_keys.begin(), e.new_keys.begin() + static_cast<std::ptrdiff_t>(e.keys_in_flight));
        queued_ -= e.events_in_flight;
        e.committed_seq = item.new_seq;
        e.events_in_flight = e.keys_in_flight = 0;
    }
    if (entries_.size() > kMaxIdleEntries) {
        for (auto it = entries_.begin(); it != entries_.end();) {
            if (it->second.queued.empty() && it->second.new_keys.empty()) {
                it = entries_.erase(it);
            } else {
                ++it;
            }
        }
        ++epoch_;
    }
}

}  // namespace slipstream::agent::sessions
