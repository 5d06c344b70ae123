// SessionStore: the durable part of Streamable HTTP sessions in a store::Database (SQLite or PostgreSQL), so a
// session outlives its process and any process on the same database serves it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "base/result.h"
#include "slipstream/mcp.h"

namespace slipstream::store {
class Database;
class DbListener;
}  // namespace slipstream::store

namespace slipstream::mcp::detail {

/// What crosses processes: everything a session negotiated. Calls in flight, requests to the client and the
/// streams' replay buffers stay in the process that holds them.
struct SessionRecord {
    std::string id;
    std::string principal;
    std::string version;
    std::string capabilities = "{}";  // the client's, compact JSON
    LogLevel log_level = LogLevel::kInfo;
    std::vector<std::string> subscriptions;
    std::int64_t created_ms = 0;    // epoch milliseconds
    std::int64_t last_seen_ms = 0;  // epoch milliseconds; idle expiry counts from here
};

/// Epoch milliseconds (the store's clock: shared by every process on the database).
std::int64_t wall_ms();

/// Thread-safe. Callbacks run on the database's thread: quick, non-blocking. Holds the Database; dropping the
/// last reference on the database's own thread hands the closing to another thread.
class SessionStore : public std::enable_shared_from_this<SessionStore> {
  public:
    struct Options {
        std::string url;                  // sqlite:///path or postgresql://...
        std::uint32_t connections = 4;    // PostgreSQL connections; SQLite worker threads
        std::uint32_t timeout_ms = 5000;  // connect, acquire and each statement
        std::uint32_t idle_ms = 30 * 60 * 1000;
        std::uint32_t max_per_principal = 100;
        std::uint32_t event_ttl_ms = 10 * 60 * 1000;  // stored stream events older than this go at the sweep
    };
    /// Opens the database and applies the migrations (table mcp_sessions, versions in mcp_schema_version).
    /// Blocking: call at start-up. The database's error (unreachable, unopenable file, a newer schema) otherwise.
    static base::Result<std::shared_ptr<SessionStore>> open(Options options);
    ~SessionStore();
    SessionStore(const SessionStore&) = delete;
    SessionStore& operator=(const SessionStore&) = delete;

    enum class Outcome : unsigned char { kOk, kNotFound, kPrincipalFull, kUnavailable };
    /// Inserts a new session, refused (kPrincipalFull) when its principal has max_per_principal live sessions
    /// in the store already.
    void insert(const SessionRecord& record, std::function<void(Outcome)> done);
    /// Writes the log level and subscriptions of a live session (kNotFound: deleted or expired).
    void update(const SessionRecord& record, std::function<void(Outcome)> done);
    /// The live (not expired) session `id`, whoever owns it (the caller compares principals); nullopt when none.
    void load(const std::string& id, std::function<void(Outcome, std::optional<SessionRecord>)> done);
    /// Sets last_seen to now (a lost touch only shortens the session's life by the touch period); `done` (may be
    /// empty) runs after it.
    void touch(const std::string& id, std::function<void()> done = {});
    /// Deletes the session of `principal` (kNotFound: none, expired, or another principal's).
    void remove(const std::string& id, const std::string& principal, std::function<void(Outcome)> done);
    /// Deletes `id` when it has been idle past the limit in the store too (no other process used it); `done` (may
    /// be empty) runs after it.
    void remove_if_idle(const std::string& id, std::function<void()> done = {});
    /// A message for the process holding a session's call: `kind` "cancel" (notifications/cancelled of request
    /// `target`) or "answer" (`payload`: the client's JSON-RPC response to our request `target`).
    struct Signal {
        std::string id;  // unique (random)
        std::string session_id;
        std::string principal;
        std::string kind;
        std::string target;
        std::string payload;
        std::int64_t created_ms = 0;
    };
    static constexpr std::int64_t kSignalLifeMs = 60'000;
    void post_signal(const Signal& signal, std::function<void(Outcome)> done = {});
    /// PostgreSQL: `on_signal` runs (on the database's thread) when a process posts a signal (LISTEN/NOTIFY on the
    /// channel mcp_signals), and after the listener reconnected (signals may have been missed); false (nothing
    /// done) on SQLite, which has no notifications: poll it.
    bool watch_signals(std::function<void()> on_signal);
    /// The signals written at or after `since_ms` (oldest first, at most `limit`).
    void signals_since(std::int64_t since_ms, std::size_t limit,
                       std::function<void(Outcome, std::vector<Signal>)> done);
    /// An event of a resumable stream (table mcp_events), by session, stream and sequence number. `final`: the stream
    /// ends after it (its answer; with empty data: it ended without an event kept, cancelled or too large).
    struct StoredEvent {
        std::uint64_t seq = 0;
        std::string data;
        bool final = false;
        std::int64_t created_ms = 0;
    };
    /// Writes `events` of one stream (one statement; PostgreSQL NOTIFYs the channel mcp_events) after deleting the
    /// stream's events up to `drop_through` (0: none).
    void append_events(const std::string& session_id, const std::string& stream, std::vector<StoredEvent> events,
                       std::uint64_t drop_through, std::function<void(Outcome)> done = {});
    /// The stream's events with seq >= `from` (oldest first, at most `limit`).
    void read_events(const std::string& session_id, const std::string& stream, std::uint64_t from, std::size_t limit,
                     std::function<void(Outcome, std::vector<StoredEvent>)> done);
    /// Whether the stream has events stored, and the newest one's time (epoch ms).
    void stream_known(const std::string& session_id, const std::string& stream,
                      std::function<void(Outcome, bool known, std::int64_t newest_ms)> done);
    /// PostgreSQL: `on_event` runs when a process appended stream events (channel mcp_events) and after the listener
    /// reconnected. Call before watch_signals() (one listener serves both); false on SQLite.
    bool watch_events(std::function<void()> on_event);

    /// Deletes up to `batch` expired sessions (and the signals older than kSignalLifeMs, the stream events older
    /// than event_ttl_ms); `done` (may be empty) hears how many sessions.
    void sweep(std::size_t batch, std::function<void(std::int64_t)> done = {});

    std::uint32_t idle_ms() const { return options_.idle_ms; }

  private:
    SessionStore(std::shared_ptr<store::Database> db, Options options);
    std::shared_ptr<store::Database> db_;
    const Options options_;
    std::shared_ptr<store::DbListener> listener_;  // watch_signals() on PostgreSQL
    std::function<void()> on_event_;               // watch_events()
};

/// The subscriptions as a JSON array text, and back (nullopt for text that is not an array of strings).
std::string subscriptions_json(const std::vector<std::string>& uris);
std::optional<std::vector<std::string>> parse_subscriptions(std::string_view json);

}  // namespace slipstream::mcp::detail
