// TransactionRunner and Transaction: slots, BEGIN, statements, COMMIT or ROLLBACK, then the next one.
#include "agent/sessions/transaction_runner.h"

#include <algorithm>
#include <future>
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
    {
        std::lock_guard<std::mutex> lock(mutex_);
        if (open_ >= slots_) {
            if (waiting_.size() >= kMaxWaiting)
                return work(base::Status::resource_exhausted("too many transactions waiting"));
            waiting_.push_back(std::move(work));
            return;
        }
        ++open_;
    }
    start(std::move(work));
}

void TransactionRunner::start(TransactionWork work) {
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

void TransactionRunner::member_ended(const std::shared_ptr<TransactionGroup>& group) {
    TransactionWork next;
    {
        std::lock_guard<std::mutex> lock(mutex_);
        // SQLite only: its one writer makes the members' locks one transaction's; on PostgreSQL, members of
        // concurrent groups taking each other's rows in different orders could deadlock.
        if (sqlite() && !waiting_.empty() && group->members < kMaxGroup) {
            next = std::move(waiting_.front());
            waiting_.pop_front();
        }
    }
    if (next) return start_member(group, std::move(next));
    finish(group);
}

void TransactionRunner::finish(const std::shared_ptr<TransactionGroup>& group) {
    group->session->query("COMMIT", {}, [self = shared_from_this(), group](store::QueryResult r) {
        mark_database_thread();
        auto answer = [self, group](base::Status status) {
            if (!self->sqlite()) group->session->close();
            std::vector<std::function<void(base::Status)>> committed = std::move(group->committed);
            self->release();
            for (auto& done : committed)
                done(status);
        };
        if (r.is_ok() || !self->sqlite()) return answer(r.status());
        // SQLite keeps the transaction open after a failed COMMIT: end it before the next one begins.
        base::Status failed = r.status();
        group->session->query("ROLLBACK", {}, [answer, failed](store::QueryResult) { answer(failed); });
    });
}

void TransactionRunner::release() {
    TransactionWork next;
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
