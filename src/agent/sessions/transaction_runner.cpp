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
        work(std::make_shared<Transaction>(self, session));
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

Transaction::Transaction(std::shared_ptr<TransactionRunner> runner, std::shared_ptr<store::DbSession> session)
    : runner_(std::move(runner)), session_(std::move(session)) {}

Transaction::~Transaction() {
    if (ended_) return;
    if (runner_->sqlite()) {
        session_->query("ROLLBACK", {}, [runner = runner_](store::QueryResult) { runner->release(); });
    } else {
        session_->close();  // rolls back; later statements go to other connections
        runner_->release();
    }
}

void Transaction::query(std::string_view sql, store::Params params, store::DbSession::QueryCallback done) {
    session_->query(sql_for(runner_->backend(), sql), std::move(params), [done](store::QueryResult r) {
        mark_database_thread();
        done(std::move(r));
    });
}

void Transaction::commit(std::function<void(base::Status)> done) {
    ended_ = true;
    session_->query("COMMIT", {}, [runner = runner_, session = session_, done](store::QueryResult r) {
        mark_database_thread();
        if (r.is_ok() || !runner->sqlite()) {
            if (!runner->sqlite()) session->close();
            runner->release();
            return done(r.status());
        }
        // SQLite keeps the transaction open after a failed COMMIT: end it before the next one begins.
        base::Status failed = r.status();
        session->query("ROLLBACK", {}, [runner, done, failed](store::QueryResult) {
            runner->release();
            done(failed);
        });
    });
}

}  // namespace slipstream::agent::sessions
