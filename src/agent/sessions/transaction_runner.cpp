// TransactionRunner and Transaction: slots, BEGIN, statements, COMMIT or ROLLBACK, then the next one.
#include "agent/sessions/transaction_runner.h"

#include <algorithm>
#include <future>
#include <optional>
#include <thread>

#include "agent/sessions/database_thread.h"
#include "agent/sessions/sql_text.h"

namespace slipstream::agent::sessions {

base::Result<std::shared_ptr<TransactionRunner>> TransactionRunner::open(const std::shared_ptr<store::Database>& db) {
    auto runner = std::make_shared<TransactionRunner>(db);
    if (db->backend() != store::Backend::kSqlite) return runner;
    // SQLite opens a session at once, on this thread.
    std::promise<base::Result<std::unique_ptr<store::DbSession>>> opened;
    db->open_session([&opened](base::Result<std::unique_ptr<store::DbSession>> s) { opened.set_value(std::move(s)); });
    base::Result<std::unique_ptr<store::DbSession>> session = opened.get_future().get();
    if (!session.is_ok()) return session.status();
    // The held connection's destructor joins its worker, and its last reference may be a callback's, dropped on
    // that worker: unless its owner closes it (ClosingOnThisThread), it is destroyed on a thread of its own.
    runner->held_ = std::shared_ptr<store::DbSession>(std::move(session).value().release(), [](store::DbSession* s) {
        if (ClosingOnThisThread::active()) {
            delete s;
        } else {
            std::thread([s] { delete s; }).detach();
        }
    });
    return runner;
}

TransactionRunner::TransactionRunner(const std::shared_ptr<store::Database>& db)
    : db_(db),
      backend_(db->backend()),
      slots_(db->backend() == store::Backend::kSqlite
                 ? 1
                 : std::max<std::size_t>(1, std::min(db->config().max_size, db->config().max_sessions))) {}

void TransactionRunner::run(TransactionWork work) {
    enqueue(Waiting{std::move(work), nullptr});
}

void TransactionRunner::run_on_thread(std::shared_ptr<SyncWork> work) {
    if (!sqlite()) return work->finished(base::Status::invalid_argument("one-hop transactions are SQLite's"));
    enqueue(Waiting{nullptr, std::move(work)});
}

void TransactionRunner::enqueue(Waiting waiting) {
    {
        std::lock_guard<std::mutex> lock(mutex_);
        if (open_ < slots_) {
            ++open_;
        } else if (waiting_.size() < kMaxWaiting) {
            waiting_.push_back(std::move(waiting));
            return;
        } else {
            base::Status full = base::Status::resource_exhausted("too many transactions waiting");
            return waiting.sync ? waiting.sync->finished(full) : waiting.work(full);
        }
    }
    start(std::move(waiting));
}

void TransactionRunner::start(Waiting waiting) {
    if (waiting.sync) return begin_on_thread(std::move(waiting.sync));
    TransactionWork work = std::move(waiting.work);
    if (sqlite()) return begin(held_, std::move(work));
    std::shared_ptr<store::Database> db = db_.lock();
    if (!db) {
        release();
        return work(base::Status::cancelled("database closed"));
    }
    db->open_session([self = shared_from_this(), work](base::Result<std::unique_ptr<store::DbSession>> s) {
        mark_database_thread();
        if (!s.is_ok()) {
            self->release();
            return work(s.status());
        }
        self->begin(std::shared_ptr<store::DbSession>(std::move(s).value()), work);
    });
}

void TransactionRunner::begin(const std::shared_ptr<store::DbSession>& session, TransactionWork work) {
    // SQLite: take the write lock now, so that a transaction that reads first cannot fail to upgrade later.
    const char* sql = sqlite() ? "BEGIN IMMEDIATE" : "BEGIN";
    session->query(sql, {}, [self = shared_from_this(), session, work](store::QueryResult r) {
        mark_database_thread();
        if (!r.is_ok()) {
            if (!self->sqlite()) session->close();
            self->release();
            return work(r.status());
        }
        auto group = std::make_shared<TransactionGroup>();
        group->session = session;
        self->start_member(group, work);
    });
}

void TransactionRunner::begin_on_thread(std::shared_ptr<SyncWork> work) {
    held_->run_on_thread([self = shared_from_this(), work](store::SyncStatements* connection) {
        mark_database_thread();
        if (connection == nullptr) {
            self->release();
            return work->finished(base::Status::cancelled("database session closed"));
        }
        store::QueryResult begun = connection->query("BEGIN IMMEDIATE", {});
        if (!begun.is_ok()) {
            self->release();
            return work->finished(begun.status());
        }
        auto group = std::make_shared<TransactionGroup>();
        group->session = self->held_;
        self->run_sync_members(*connection, group, work);
    });
}

void TransactionRunner::start_member(const std::shared_ptr<TransactionGroup>& group, TransactionWork work) {
    std::string savepoint = "ss_member_" + std::to_string(++group->members);
    group->session->query("SAVEPOINT " + savepoint, {},
                          [self = shared_from_this(), group, savepoint, work](store::QueryResult r) {
                              mark_database_thread();
                              if (!r.is_ok()) {
                                  work(r.status());
                                  return self->member_ended(group);
                              }
                              work(std::make_shared<Transaction>(self, group, savepoint));
                          });
}

void TransactionRunner::start_sync_member(const std::shared_ptr<TransactionGroup>& group,
                                          std::shared_ptr<SyncWork> work) {
    group->session->run_on_thread([self = shared_from_this(), group, work](store::SyncStatements* connection) {
        mark_database_thread();
        if (connection == nullptr) {
            work->finished(base::Status::cancelled("database session closed"));
            return self->finish(group);
        }
        self->run_sync_members(*connection, group, work);
    });
}

void TransactionRunner::run_sync_members(store::SyncStatements& connection,
                                         const std::shared_ptr<TransactionGroup>& group,
                                         std::shared_ptr<SyncWork> first) {
    std::shared_ptr<SyncWork> work = std::move(first);
    while (true) {
        // The member, in a savepoint of its own: kept, or undone alone.
        const std::string savepoint = "ss_member_" + std::to_string(++group->members);
        store::QueryResult begun = connection.query("SAVEPOINT " + savepoint, {});
        std::optional<base::Status> failed;
        bool kept = false;
        if (!begun.is_ok()) {
            failed = begun.status();
        } else if (work->run(connection)) {
            store::QueryResult released = connection.query("RELEASE SAVEPOINT " + savepoint, {});
            kept = released.is_ok();
            if (!kept) failed = released.status();
        }
        if (kept) {
            group->committed.push_back([work](base::Status status) { work->finished(std::move(status)); });
        } else {
            if (begun.is_ok()) {
                (void)connection.query("ROLLBACK TO SAVEPOINT " + savepoint, {});
                (void)connection.query("RELEASE SAVEPOINT " + savepoint, {});
            }
            if (failed) work->finished(std::move(*failed));
        }
        // The next member joins here when it is one-hop work too; else the COMMIT, in this hop as well.
        Waiting next;
        if (!next_member(group, &next)) break;
        if (!next.sync) return start_member(group, std::move(next.work));
        work = std::move(next.sync);
    }
    store::QueryResult committed = connection.query("COMMIT", {});
    // SQLite keeps the transaction open after a failed COMMIT: end it before the next one begins.
    if (!committed.is_ok()) (void)connection.query("ROLLBACK", {});
    answer(group, committed.status());
}

bool TransactionRunner::next_member(const std::shared_ptr<TransactionGroup>& group, Waiting* next) {
    std::lock_guard<std::mutex> lock(mutex_);
    // SQLite only: its one writer makes the members' locks one transaction's; on PostgreSQL, members of
    // concurrent groups taking each other's rows in different orders could deadlock.
    if (!sqlite() || waiting_.empty() || group->members >= kMaxGroup) return false;
    *next = std::move(waiting_.front());
    waiting_.pop_front();
    return true;
}

void TransactionRunner::member_ended(const std::shared_ptr<TransactionGroup>& group) {
    Waiting next;
    if (!next_member(group, &next)) return finish(group);
    if (next.sync) return start_sync_member(group, std::move(next.sync));
    start_member(group, std::move(next.work));
}

void TransactionRunner::finish(const std::shared_ptr<TransactionGroup>& group) {
    group->session->query("COMMIT", {}, [self = shared_from_this(), group](store::QueryResult r) {
        mark_database_thread();
        if (r.is_ok() || !self->sqlite()) return self->answer(group, r.status());
        // SQLite keeps the transaction open after a failed COMMIT: end it before the next one begins.
        base::Status failed = r.status();
        group->session->query("ROLLBACK", {},
                              [self, group, failed](store::QueryResult) { self->answer(group, failed); });
    });
}

void TransactionRunner::answer(const std::shared_ptr<TransactionGroup>& group, const base::Status& status) {
    if (!sqlite()) group->session->close();
    std::vector<std::function<void(base::Status)>> committed = std::move(group->committed);
    release();
    for (auto& done : committed)
        done(status);
}

void TransactionRunner::release() {
    Waiting next;
    {
        std::lock_guard<std::mutex> lock(mutex_);
        if (waiting_.empty()) {
            --open_;
            return;
        }
        next = std::move(waiting_.front());
        waiting_.pop_front();
    }
    start(std::move(next));
}

Transaction::Transaction(std::shared_ptr<TransactionRunner> runner, std::shared_ptr<TransactionGroup> group,
                         std::string savepoint)
    : runner_(std::move(runner)), group_(std::move(group)), savepoint_(std::move(savepoint)) {}

Transaction::~Transaction() {
    if (ended_) return;
    // Undone alone: the group's other members stay.
    group_->session->query("ROLLBACK TO SAVEPOINT " + savepoint_, {}, [](store::QueryResult) {});
    group_->session->query("RELEASE SAVEPOINT " + savepoint_, {},
                           [runner = runner_, group = group_](store::QueryResult) {
                               mark_database_thread();
                               runner->member_ended(group);
                           });
}

void Transaction::query(std::string_view sql, store::Params params, store::DbSession::QueryCallback done) {
    group_->session->query(sql_for(runner_->backend(), sql), std::move(params), [done](store::QueryResult r) {
        mark_database_thread();
        done(std::move(r));
    });
}

void Transaction::commit(std::function<void(base::Status)> done) {
    ended_ = true;
    group_->session->query("RELEASE SAVEPOINT " + savepoint_, {},
                           [runner = runner_, group = group_, savepoint = savepoint_, done](store::QueryResult r) {
                               mark_database_thread();
                               if (r.is_ok()) {
                                   group->committed.push_back(done);  // answered after the group's COMMIT
                                   return runner->member_ended(group);
                               }
                               // The member cannot be kept: undo it alone and say why now.
                               base::Status failed = r.status();
                               group->session->query("ROLLBACK TO SAVEPOINT " + savepoint, {},
                                                     [](store::QueryResult) {});
                               group->session->query("RELEASE SAVEPOINT " + savepoint, {},
                                                     [runner, group, done, failed](store::QueryResult) {
                                                         mark_database_thread();
                                                         done(failed);
                                                         runner->member_ended(group);
                                                     });
                           });
}

}  // namespace slipstream::agent::sessions
