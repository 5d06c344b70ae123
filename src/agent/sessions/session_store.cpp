// SessionStore: opening (migrations), sessions themselves (create, get, list, remove, erase, sweep).
#include "agent/sessions/session_store.h"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <future>
#include <thread>

#include "base/log.h"

#include "agent/sessions/database_thread.h"
#include "agent/sessions/json_merge_patch.h"
#include "agent/sessions/session_id.h"
#include "agent/sessions/session_rows.h"
#include "agent/sessions/session_schema.h"
#include "agent/sessions/sql_text.h"

namespace slipstream::agent::sessions {

namespace {

// `text` compacted ("{}" when empty), or kInvalid naming `what`; kLimit `limit` past `max_bytes`.
SessionResult<std::string> json_document(const std::string& text, const char* what, const char* limit,
                                         std::uint64_t max_bytes) {
    if (text.empty()) return std::string("{}");
    base::Result<std::string> compact = compact_json(text);
    if (!compact.is_ok()) return SessionError::invalid(std::string(what) + " is not JSON");
    if (compact->size() > max_bytes)
        return SessionError::over_limit(limit, max_bytes,
                                        std::string(what) + " is larger than " + std::to_string(max_bytes) + " bytes");
    return std::move(compact).value();
}

// Waits (up to 2 s) until only the caller holds the runner: transactions that ended hold it in callbacks for a
// moment after their answer, and their connections must go back before the Database closes.
void wait_until_unused(const std::shared_ptr<TransactionRunner>& runner) {
    for (int i = 0; i < 200 && runner.use_count() > 1; ++i)
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
}

}  // namespace

base::Result<std::shared_ptr<SessionStore>> SessionStore::open(std::shared_ptr<store::Database> db,
                                                               SessionStoreOptions options) {
    if (!db) return base::Status::invalid_argument("the session store needs a database");
    ClosingOnThisThread closing;  // start-up: a runner dropped on a failure closes its connection here
    SLIPSTREAM_ASSIGN_OR_RETURN(std::shared_ptr<TransactionRunner> runner, TransactionRunner::open(db));
    base::Status migrated = migrate_session_schema(*db, *runner);
    if (!migrated.is_ok()) {
        // The failed transaction's callbacks may still hold it: let them go before the caller closes the Database.
        wait_until_unused(runner);
        return migrated;
    }
    auto opened = std::make_shared<SessionStore>(std::move(db), std::move(runner), std::move(options));
    SLIPSTREAM_RETURN_IF_ERROR(opened->listen_for_changes());
    return opened;
}

SessionStore::SessionStore(std::shared_ptr<store::Database> db, std::shared_ptr<TransactionRunner> runner,
                           SessionStoreOptions options)
    : db_(std::move(db)), runner_(std::move(runner)), options_(std::move(options)) {
    if (options_.durability == Durability::kBuffered) {
        buffer_ = std::make_shared<WriteBehind>(db_, runner_, options_.buffer);
        buffer_->start();
    }
    base::Result<std::string> nonce = new_session_id();
    nonce_ = nonce.is_ok() ? std::move(nonce).value() : std::to_string(reinterpret_cast<std::uintptr_t>(this));
}

void SessionStore::close() {
    if (buffer_) buffer_->stop();
}

SessionStore::~SessionStore() {
    changes_->clear();  // followers end (their streams close)
    // An owner that did not close() loses what is still queued; the flusher thread ends here.
    buffer_.reset();
    // The last reference to the store can be a callback's, dropped on the database's own thread, where the
    // Database's destructor (it joins that thread) must not run.
    if (on_database_thread()) {
        std::thread([db = std::move(db_), runner = std::move(runner_), listener = std::move(listener_)]() mutable {
            ClosingOnThisThread closing;
            listener.reset();
            runner.reset();
            db.reset();
        }).detach();
        return;
    }
    // An owner closing: transactions still ending hold the runner for a moment; then it closes here.
    listener_.reset();
    wait_until_unused(runner_);
    ClosingOnThisThread closing;
    runner_.reset();
    db_.reset();
}

void SessionStore::announce(const std::string& id, std::int64_t last_seq) {
    if (id.empty()) {
        changes_->publish_all();
    } else {
        changes_->publish(id);
    }
    if (db_->backend() != store::Backend::kPostgres) return;
    // After the commit, outside its transaction: a NOTIFY lost with a crash here is found again by followers'
    // periodic re-read (SessionSweeper wakes them all).
    (void)db_->query("SELECT pg_notify($1, $2)",
                     {options_.notify_channel, nonce_ + " " + (id.empty() ? "*" : id) + " " + std::to_string(last_seq)},
                     [](store::QueryResult r) {
                         // kCancelled: the store closed first; its followers end anyway.
                         if (!r.is_ok() && r.status().code() != base::StatusCode::kCancelled)
                             base::log_message(base::LogLevel::kWarn,
                                               "session NOTIFY failed: " + r.status().to_string());
                     });
}

void SessionStore::follow_started(const std::string& owner, const std::string& id, std::function<void()> then) {
    if (db_->backend() != store::Backend::kPostgres) return then();
    query("UPDATE agent_sessions SET followers = followers + 1 WHERE id = $1 AND owner = $2", {id, owner},
          [then = std::move(then)](store::QueryResult) { then(); });
}

void SessionStore::follow_ended(const std::string& owner, const std::string& id) {
    if (db_->backend() != store::Backend::kPostgres) return;
    query("UPDATE agent_sessions SET followers = GREATEST(followers - 1, 0) WHERE id = $1 AND owner = $2", {id, owner},
          [](store::QueryResult r) {
              // kCancelled: the store closed; the count stays up (more NOTIFYs, never fewer).
              if (!r.is_ok() && r.status().code() != base::StatusCode::kCancelled)
                  base::log_message(base::LogLevel::kWarn,
                                    "sessions: a follower's end was not recorded: " + r.status().to_string());
          });
}

base::Status SessionStore::listen_for_changes() {
    if (db_->backend() != store::Backend::kPostgres) return base::Status::ok();
    store::ListenerHandlers handlers;
    std::weak_ptr<SessionChanges> weak = changes_;
    handlers.on_notification = [weak, nonce = nonce_](const store::DbNotification& n) {
        std::shared_ptr<SessionChanges> changes = weak.lock();
        if (!changes) return;
        // "<nonce> <id> <last_seq>": this store's own are already published.
        const std::size_t space = n.payload.find(' ');
        if (space == std::string::npos) return changes->publish_all();
        if (std::string_view(n.payload).substr(0, space) == nonce) return;
        const std::size_t end = n.payload.find(' ', space + 1);
        std::string id = n.payload.substr(space + 1, end == std::string::npos ? std::string::npos : end - space - 1);
        if (id == "*") return changes->publish_all();
        changes->publish(id);
    };
    handlers.on_event = [weak](store::ListenerEvent event, const base::Status& why) {
        std::shared_ptr<SessionChanges> changes = weak.lock();
        if (event == store::ListenerEvent::kConnectionLost) {
            base::log_message(base::LogLevel::kWarn, "session listener lost its connection: " + why.to_string());
            return;
        }
        // NOTIFYs sent while it was away are lost: every follower re-reads from its cursor.
        if (changes) changes->publish_all();
    };
    std::promise<base::Result<std::unique_ptr<store::DbListener>>> opened;
    std::future<base::Result<std::unique_ptr<store::DbListener>>> ready = opened.get_future();
    db_->open_listener(std::move(handlers), [&opened](base::Result<std::unique_ptr<store::DbListener>> listener) {
        opened.set_value(std::move(listener));
    });
    base::Result<std::unique_ptr<store::DbListener>> listener = ready.get();
    if (!listener.is_ok()) return listener.status();
    std::promise<base::Status> listening;
    std::future<base::Status> heard = listening.get_future();
    listener.value()->listen(options_.notify_channel, [&listening](base::Status s) { listening.set_value(s); });
    base::Status s = heard.get();
    listener_ = std::move(listener).value();
    return s;
}

std::int64_t SessionStore::now_ms() const {
    return options_.clock->wall_now() / 1'000'000;
}

void SessionStore::query(std::string_view sql, store::Params params, store::Database::QueryCallback done) {
    (void)db_->query(sql_for(db_->backend(), sql), std::move(params), [done = std::move(done)](store::QueryResult r) {
        mark_database_thread();
        done(std::move(r));
    });
}

void SessionStore::check_owner(const std::string& owner, const std::string& id, std::function<void(SessionError)> fail,
                               std::function<void()> then) {
    query("SELECT owner FROM agent_sessions WHERE id = $1 AND expires_at > $2", {id, now_ms()},
          [owner, fail, then](store::QueryResult r) {
              if (!r.is_ok()) return fail(error_from_status(r.status()));
              if (r->row_count() == 0) return fail(SessionError::not_found());
              if (r->text(0, 0) != owner) return fail(SessionError::forbidden());
              then();
          });
}

void SessionStore::create(std::string owner, NewSession session, SessionCallback<SessionInfo> answer) {
    SessionCallback<SessionInfo> done = [stats = stats_, answer](SessionResult<SessionInfo> r) {
        if (r.is_ok()) stats->sessions_created.fetch_add(1, std::memory_order_relaxed);
        answer(std::move(r));
    };
    const SessionLimits& limits = options_.limits;
    SessionResult<std::string> metadata =
        json_document(session.metadata_json, "metadata", "metadata_bytes", limits.max_metadata_bytes);
    if (!metadata.is_ok()) return done(metadata.error());
    SessionResult<std::string> state =
        json_document(session.state_json, "state", "state_bytes", limits.max_state_bytes);
    if (!state.is_ok()) return done(state.error());
    const std::int64_t ttl = session.ttl_ms == 0 ? limits.default_ttl_ms : session.ttl_ms;
    if (ttl < 1 || ttl > limits.max_ttl_ms)
        return done(SessionError::invalid("ttl_ms must be within 1.." + std::to_string(limits.max_ttl_ms)));
    base::Result<std::string> id = new_session_id();
    if (!id.is_ok()) return done(SessionError::internal(id.status().to_string()));

    SessionInfo info;
    info.id = std::move(id).value();
    info.owner = std::move(owner);
    info.metadata_json = std::move(metadata).value();
    info.state_version = 1;
    info.ttl_ms = ttl;
    info.created_at_ms = info.updated_at_ms = now_ms();
    info.expires_at_ms = info.created_at_ms + ttl;
    const std::uint64_t max = limits.max_sessions_per_principal;
    store::Params insert{info.id, info.owner,         info.metadata_json, std::move(state).value(),
                         ttl,     info.created_at_ms, info.expires_at_ms, static_cast<std::int64_t>(max)};
    auto over_limit = [max] {
        return SessionError::over_limit("sessions_per_principal", max,
                                        "the principal has " + std::to_string(max) + " sessions already");
    };
    runner_->run([info, insert = std::move(insert), over_limit,
                  done](base::Result<std::shared_ptr<Transaction>> begun) mutable {
        if (!begun.is_ok()) return done(error_from_status(begun.status()));
        std::shared_ptr<Transaction> tx = std::move(begun).value();
        // The principal's row, locked until COMMIT: creates of one principal take turns, so the count is exact.
        tx->query(
            "INSERT INTO agent_principals (owner) VALUES ($1) ON CONFLICT (owner) DO UPDATE SET owner = "
            "excluded.owner",
            {info.owner}, [tx, info, insert = std::move(insert), over_limit, done](store::QueryResult locked) mutable {
                if (!locked.is_ok()) return done(error_from_status(locked.status()));
                tx->query(
                    "INSERT INTO agent_sessions (id, owner, metadata, state, state_version, last_seq, ttl_ms, "
                    "created_at, updated_at, expires_at) SELECT $1, $2, $3, $4, 1, 0, $5, $6, $6, $7 WHERE (SELECT "
                    "COUNT(*) FROM agent_sessions WHERE owner = $2 AND expires_at > $6) < $8",
                    std::move(insert), [tx, info, over_limit, done](store::QueryResult r) {
                        if (!r.is_ok()) return done(error_from_status(r.status()));
                        if (r->affected_rows() == 0) return done(over_limit());  // dropped: rolled back
                        tx->commit([info, done](base::Status s) {
                            if (!s.is_ok()) return done(error_from_status(s));
                            done(info);
                        });
                    });
            });
    });
}

void SessionStore::get(std::string owner, std::string id, SessionCallback<SessionInfo> done) {
    // Buffered: the newest seq queued, taken before the read, so a committed flush cannot fall between the two.
    const std::int64_t queued_seq = buffer_ ? buffer_->pending(id, INT64_MAX).last_seq : 0;
    query(std::string("SELECT ") + kSessionColumns + " FROM agent_sessions WHERE id = $1 AND expires_at > $2",
          {std::move(id), now_ms()}, [owner = std::move(owner), queued_seq, done](store::QueryResult r) {
              if (!r.is_ok()) return done(error_from_status(r.status()));
              if (r->row_count() == 0) return done(SessionError::not_found());
              SessionInfo info = session_from_row(r.value(), 0);
              if (info.owner != owner) return done(SessionError::forbidden());
              info.last_seq = std::max(info.last_seq, queued_seq);
              done(std::move(info));
          });
}

void SessionStore::list(std::string owner, std::string after, std::size_t limit, SessionCallback<SessionPage> done) {
    if (limit == 0) return done(SessionPage{});
    query(std::string("SELECT ") + kSessionColumns +
              " FROM agent_sessions WHERE owner = $1 AND expires_at > $2 AND id > $3 ORDER BY id LIMIT $4",
          {std::move(owner), now_ms(), std::move(after), static_cast<std::int64_t>(limit + 1)},
          [limit, done](store::QueryResult r) {
              if (!r.is_ok()) return done(error_from_status(r.status()));
              SessionPage page;
              const std::size_t n = std::min(r->row_count(), limit);
              for (std::size_t i = 0; i < n; ++i)
                  page.sessions.push_back(session_from_row(r.value(), i));
              if (r->row_count() > limit) page.next_after = page.sessions.back().id;
              done(std::move(page));
          });
}

void SessionStore::remove(std::string owner, std::string id, SessionCallback<Done> done) {
    auto self = shared_from_this();
    query("DELETE FROM agent_sessions WHERE id = $1 AND owner = $2 AND expires_at > $3", {id, owner, now_ms()},
          [self, owner, id, done](store::QueryResult r) {
              if (!r.is_ok()) return done(error_from_status(r.status()));
              if (r->affected_rows() > 0) {
                  if (self->buffer_) self->buffer_->forget(id);
                  self->announce(id, 0);
                  return done(Done{});
              }
              // Nothing deleted: tell an unknown session from another principal's.
              self->check_owner(
                  owner, id, [done](SessionError e) { done(std::move(e)); },
                  [done] { done(SessionError::not_found()); });
          });
}

void SessionStore::erase_principal(std::string owner, SessionCallback<std::int64_t> inner) {
    auto self = shared_from_this();
    SessionCallback<std::int64_t> done = [self, inner](SessionResult<std::int64_t> erased) {
        if (erased.is_ok() && erased.value() > 0) self->announce("", 0);
        inner(std::move(erased));
    };
    auto forget = [buffer = buffer_, owner] {
        if (buffer) buffer->forget_owner(owner);
    };
    runner_->run([owner = std::move(owner), forget, done](base::Result<std::shared_ptr<Transaction>> begun) {
        if (!begun.is_ok()) return done(error_from_status(begun.status()));
        std::shared_ptr<Transaction> tx = std::move(begun).value();
        tx->query("DELETE FROM agent_sessions WHERE owner = $1", {owner},
                  [tx, owner, forget, done](store::QueryResult r) {
                      if (!r.is_ok()) return done(error_from_status(r.status()));
                      const std::int64_t erased = r->affected_rows();
                      tx->query("DELETE FROM agent_principals WHERE owner = $1", {owner},
                                [tx, erased, forget, done](store::QueryResult p) {
                                    if (!p.is_ok()) return done(error_from_status(p.status()));
                                    tx->commit([erased, forget, done](base::Status s) {
                                        if (!s.is_ok()) return done(error_from_status(s));
                                        forget();
                                        done(erased);
                                    });
                                });
                  });
    });
}

void SessionStore::sweep(SessionCallback<std::int64_t> done) {
    sweep_batch(now_ms(), 0, std::move(done));
}

void SessionStore::sweep_batch(std::int64_t now, std::int64_t swept_so_far, SessionCallback<std::int64_t> done) {
    // Batches keep each statement (and SQLite's write lock) short when many sessions expired at once.
    constexpr std::int64_t kBatch = 500;
    auto self = shared_from_this();
    query("DELETE FROM agent_sessions WHERE id IN (SELECT id FROM agent_sessions WHERE expires_at <= $1 LIMIT $2)",
          {now, kBatch}, [self, now, swept_so_far, done](store::QueryResult r) {
              if (!r.is_ok()) return done(error_from_status(r.status()));
              const std::int64_t swept = swept_so_far + r->affected_rows();
              if (r->affected_rows() < kBatch) return done(swept);
              self->sweep_batch(now, swept, done);
          });
}

}  // namespace slipstream::agent::sessions
