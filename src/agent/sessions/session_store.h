// SessionStore: durable agent sessions (metadata, an append-only event log, a versioned state document) on
// store::Database, SQLite or PostgreSQL.
#pragma once

#include <atomic>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "agent/sessions/session_changes.h"
#include "agent/sessions/session_error.h"
#include "agent/sessions/session_types.h"
#include "agent/sessions/transaction_runner.h"
#include "agent/sessions/write_behind.h"
#include "base/clock.h"
#include "base/result.h"
#include "slipstream/app.h"
#include "store/database/database.h"
#include "store/database/db_listener.h"

namespace slipstream::agent::sessions {

template <typename T>
using SessionCallback = std::function<void(SessionResult<T>)>;

/// kDurable: an append or state write is answered after its COMMIT. kBuffered: appends are answered once queued in
/// memory and written by WriteBehind (one transaction per flush); state writes and the rest stay durable.
enum class Durability : std::uint8_t { kDurable, kBuffered };

struct SessionStoreOptions {
    SessionLimits limits;
    Durability durability = Durability::kDurable;
    WriteBehindOptions buffer{};  // kBuffered: flush interval and queue bound
    /// Wall time for created/updated/expires (epoch milliseconds); a ManualClock in tests.
    std::shared_ptr<const base::Clock> clock = std::make_shared<base::SystemClock>();
    /// PostgreSQL: the channel of this store's NOTIFYs (every replica on one database must use the same one).
    std::string notify_channel = "slipstream_agent_sessions";
    /// PostgreSQL durable appends: statements out at once; an append arriving while that many are out waits, and the
    /// next answer sends everything waiting as one statement (one transaction and one commit for the group).
    std::size_t append_in_flight = 4;
    /// The most appends one such statement carries (one per session; the rest wait for the next).
    std::size_t append_batch = 64;
};

/// What a store did since it opened, for /metrics (session_metrics.h): relaxed counters, any thread.
struct SessionStats {
    std::atomic<std::uint64_t> sessions_created{0};
    std::atomic<std::uint64_t> appends{0};       // appends that added events (replays not counted)
    std::atomic<std::uint64_t> events{0};        // the events they added
    std::atomic<std::uint64_t> replayed{0};      // appends answered from their idempotency key
    std::atomic<std::uint64_t> state_writes{0};  // state documents written (put and patch)
    std::atomic<std::uint64_t> conflicts{0};     // state writes refused: the expected version was stale
    std::atomic<std::uint64_t> refused_busy{0};  // buffered appends refused: the queue was full
    std::atomic<std::uint64_t> grouped{0};       // PostgreSQL durable appends that went out in a group statement
};

/// Thread-safe; every operation answers once through its callback, on the database's thread (or at once on the
/// caller's for input refused before any statement). Durable: a write is answered only after its commit (SQLite
/// runs with synchronous=FULL, the store/sqlite default). Every operation names the principal acting; a session of
/// another principal is kForbidden, an unknown or expired one kNotFound. An expired session is invisible at once;
/// sweep() deletes it for good. Every write moves expires_at to now + the session's TTL.
class SessionStore : public std::enable_shared_from_this<SessionStore> {
  public:
    /// Applies the schema migrations (blocking: call at start-up) and returns the store. The database must be a
    /// file or a server (an in-memory SQLite database has a single connection).
    static base::Result<std::shared_ptr<SessionStore>> open(std::shared_ptr<store::Database> db,
                                                            SessionStoreOptions options = {});

    SessionStore(std::shared_ptr<store::Database> db, std::shared_ptr<TransactionRunner> runner,
                 SessionStoreOptions options);
    /// Dropping the last reference on a database thread (in a callback) hands the Database to a short-lived
    /// thread of its own, since its destructor joins the database's threads. Owners drop theirs elsewhere.
    ~SessionStore();
    SessionStore(const SessionStore&) = delete;
    SessionStore& operator=(const SessionStore&) = delete;

    /// A new session owned by `owner`; kLimit "sessions_per_principal" when the owner has as many live sessions.
    void create(std::string owner, NewSession session, SessionCallback<SessionInfo> done);
    void get(std::string owner, std::string id, SessionCallback<SessionInfo> done);
    /// The owner's live sessions in id order after the cursor `after` ("" for the first page), at most `limit`.
    void list(std::string owner, std::string after, std::size_t limit, SessionCallback<SessionPage> done);
    /// Deletes the session with its events and state.
    void remove(std::string owner, std::string id, SessionCallback<Done> done);
    /// Deletes every session of `owner` (expired ones too); answers how many.
    void erase_principal(std::string owner, SessionCallback<std::int64_t> done);

    /// Appends `events` in one transaction: they get consecutive seqs after the newest. With an idempotency key
    /// seen before on this session, nothing is added and the original range is answered (replayed = true).
    /// kLimit "events_per_session", "event_bytes" or "batch_events"; kInvalid for an empty batch, an empty role
    /// or content that is not JSON.
    void append(std::string owner, std::string id, std::vector<NewEvent> events, std::string idempotency_key,
                SessionCallback<AppendResult> done);
    /// Events with seq > `after`, oldest first, at most `limit`.
    void events(std::string owner, std::string id, std::int64_t after, std::size_t limit,
                SessionCallback<EventPage> done);

    void get_state(std::string owner, std::string id, SessionCallback<StateDocument> done);
    /// Replaces the state document. With `expected_version`, only when it is the stored version (else kConflict
    /// carrying the stored one). kLimit "state_bytes"; kInvalid when `state_json` is not JSON.
    void put_state(std::string owner, std::string id, std::string state_json,
                   std::optional<std::int64_t> expected_version, SessionCallback<StateDocument> done);
    /// Applies a JSON merge patch (RFC 7396) to the state document, with the same conditions as put_state. Without
    /// `expected_version`, a concurrent write is retried on the newer document.
    void patch_state(std::string owner, std::string id, std::string patch_json,
                     std::optional<std::int64_t> expected_version, SessionCallback<StateDocument> done);

    /// Deletes the sessions that expired (with their events), in batches of 500; answers how many.
    void sweep(SessionCallback<std::int64_t> done);

    /// kBuffered: writes what is queued and stops the flusher (blocking; call once the routes stopped, never on
    /// a database thread). Appends after it are refused. Nothing to do when durable.
    void close();
    /// Who follows which session in this process: appends, deletes and (PostgreSQL) other replicas' NOTIFYs wake
    /// them. See announce().
    SessionChanges& changes() { return *changes_; }
    /// A session changed (`last_seq`: its newest seq, 0 for a delete; `id` empty: every session, an erase):
    /// wakes its followers here and, on PostgreSQL, NOTIFYs the store's channel with "<nonce> <id> <last_seq>"
    /// ("*" for every session) so the other processes wake theirs. Called after each committed append, delete
    /// and erase.
    void announce(const std::string& id, std::int64_t last_seq);
    /// PostgreSQL: LISTENs on the store's channel (blocking: start-up; SessionStore::open calls it) and wakes the
    /// followers of the sessions other processes announce; after the listener reconnects, every follower
    /// re-reads from its cursor. SQLite: nothing (appends in this process wake followers directly).
    base::Status listen_for_changes();
    /// A follower of `id` (as `owner`) starts: on PostgreSQL its count in the row goes up, so appends from every
    /// process NOTIFY while it follows; `then` runs once that is committed (whatever the outcome: a session that is
    /// not there is the first read's answer). SQLite: `then` at once. follow_ended() takes the count down.
    void follow_started(const std::string& owner, const std::string& id, std::function<void()> then);
    void follow_ended(const std::string& owner, const std::string& id);

    /// Counters for /metrics.
    const SessionStats& stats() const { return *stats_; }
    /// kBuffered: events acknowledged and not yet committed; 0 when durable.
    std::size_t queued_events() const { return buffer_ ? buffer_->queued_events() : 0; }
    /// kBuffered: acknowledged events dropped at a flush (session gone or written elsewhere) since start.
    std::uint64_t dropped_events() const { return buffer_ ? buffer_->dropped_events() : 0; }
    /// Every append's time from the call to its answer goes to `histogram` (set before the store is used).
    void observe_appends(DurationHistogram histogram) { append_latency_ = histogram; }

    const SessionLimits& limits() const { return options_.limits; }
    Durability durability() const { return options_.durability; }
    store::Backend backend() const { return db_->backend(); }

    /// One append, as the backends' writers take it (session_log.cpp).
    struct AppendRequest {
        std::string owner;
        std::string id;
        std::vector<NewEvent> events;
        std::string key;
        std::int64_t now = 0;
        SessionCallback<AppendResult> done;
    };

  private:
    // A durable append on PostgreSQL (postgres_append.cpp): one statement, tried again when its snapshot was
    // overtaken (a concurrent append with the same key won, or the row changed before its UPDATE). While
    // options_.append_in_flight statements are out, appends wait in pg_waiting_; each answer sends what waits as
    // one statement of several appends (one commit), or the one alone.
    static constexpr int kAppendAttempts = 5;
    struct PgAppend {
        std::shared_ptr<AppendRequest> request;
        int attempts_left = kAppendAttempts;
    };
    void submit_postgres(PgAppend append);
    void send_postgres(std::vector<PgAppend> group);  // one statement: alone, or a group of distinct sessions
    void append_postgres(std::shared_ptr<AppendRequest> request, int attempts_left);
    void append_postgres_group(std::vector<PgAppend> group);
    void postgres_statement_done();  // a statement answered: the next group goes out
    std::mutex pg_mutex_;
    std::deque<PgAppend> pg_waiting_;  // under pg_mutex_
    std::size_t pg_in_flight_ = 0;     // under pg_mutex_
    // `answer` that counts the append (stats_) and observes its latency first.
    SessionCallback<AppendResult> counted_append(SessionCallback<AppendResult> answer, std::size_t events);
    SessionCallback<StateDocument> counted_state_write(SessionCallback<StateDocument> done);

    std::int64_t now_ms() const;
    /// One statement on the shared pool, written with $n placeholders.
    void query(std::string_view sql, store::Params params, store::Database::QueryCallback done);
    /// Reads the session's owner and checks it: `then` runs only for a live session of `owner`.
    void check_owner(const std::string& owner, const std::string& id, std::function<void(SessionError)> fail,
                     std::function<void()> then);
    /// UPDATE of the state document, guarded by `guard` (the version it must still have) when set; a miss is
    /// explained as kNotFound, kForbidden or kConflict.
    void write_state(std::string owner, std::string id, std::string state_json, std::optional<std::int64_t> guard,
                     SessionCallback<StateDocument> done);
    void sweep_batch(std::int64_t now, std::int64_t swept_so_far, SessionCallback<std::int64_t> done);
    void patch_once(std::string owner, std::string id, std::string patch_json,
                    std::optional<std::int64_t> expected_version, int attempts_left,
                    SessionCallback<StateDocument> done);

    std::shared_ptr<store::Database> db_;
    std::shared_ptr<TransactionRunner> runner_;
    SessionStoreOptions options_;
    std::shared_ptr<WriteBehind> buffer_;  // kBuffered only
    std::shared_ptr<SessionChanges> changes_ = std::make_shared<SessionChanges>();
    std::string nonce_;  // tells this store's own NOTIFYs from other processes'
    std::unique_ptr<store::DbListener> listener_;
    // Held by the answers' counting wrappers, which must not hold the store (its last reference must not be
    // dropped on a database thread).
    std::shared_ptr<SessionStats> stats_ = std::make_shared<SessionStats>();
    DurationHistogram append_latency_;
};

}  // namespace slipstream::agent::sessions
