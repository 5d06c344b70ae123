// SessionService: durable agent sessions (an event log and a versioned state document per session, in SQLite or
// PostgreSQL) with their HTTP routes on any App, and the same operations for handlers.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "slipstream/app.h"

namespace slipstream {

/// Every count, size and time has a limit here with the server's defaults (the --session-* flags).
struct SessionsOptions {
    /// sqlite:///absolute/path.db, sqlite://relative/path.db or postgresql://... (shared by replicas). Required.
    std::string store_url;
    bool buffered = false;                   // appends answered once queued, written every flush_ms
    std::int64_t flush_ms = 50;              // buffered: the longest time between two writes of the queue
    std::size_t max_queued_events = 10'000;  // buffered: then 503 with Retry-After
    /// PostgreSQL durable appends: statements out at once; appends arriving meanwhile wait and go together in the
    /// next statement (one transaction and one commit for the group; each is answered after that commit).
    std::size_t append_in_flight = 4;
    std::size_t append_batch = 64;               // the most appends one such statement carries (one per session)
    std::uint64_t max_events = 100'000;          // events per session
    std::uint64_t max_event_bytes = 64 * 1024;   // role + content of one event
    std::uint64_t max_state_bytes = 256 * 1024;  // the state document
    std::uint64_t max_per_principal = 1'000;     // live sessions of one principal
    std::int64_t ttl_ms = 24 * 3'600'000;        // default lifetime after the last write
    std::int64_t sweep_interval_ms = 60'000;     // how often expired sessions are deleted
    std::size_t max_page = 1'000;                // the largest ?limit= of a page
    bool metrics = true;                         // slipstream_sessions_* series on the /metrics of Apps mounted on
};

/// One operation's answer, exactly as the HTTP routes give it: `status` (200, 201, or the error's: 403, 404,
/// 409, 413, 422, 503, ...) and `body` (the JSON answer, or the application/problem+json document; a conflict's
/// carries "current_version"). `version`: the state document's version for state operations (0 otherwise).
struct SessionReply {
    int status = 0;
    std::string body;
    std::int64_t version = 0;
    bool ok() const { return status >= 200 && status < 300; }
};
using SessionReplyCallback = std::function<void(SessionReply)>;

/// One event to append: a role (1..64 bytes) and any JSON value as text.
struct SessionEventInput {
    std::string role;
    std::string content_json;
};

/// The store (opened, its schema migrated) and its sweeper. Keep it until every App it is mounted on has
/// stopped. Thread-safe. Operations answer once through their callback, on the database's thread (or at once on
/// the caller's for input refused before any statement); the callback must not block. `principal` is who acts
/// (Request::principal(), or "anonymous" with authentication off): another principal's session is a 403.
class SessionService {
  public:
    /// Blocking (opens the store, applies migrations). Throws std::invalid_argument for a bad option,
    /// std::runtime_error when the store cannot be opened.
    explicit SessionService(SessionsOptions options);
    ~SessionService();  // close()
    SessionService(const SessionService&) = delete;
    SessionService& operator=(const SessionService&) = delete;

    /// Registers the routes under `prefix` ("/sessions": POST/GET/DELETE prefix, GET/DELETE prefix/{id},
    /// POST/GET prefix/{id}/events (GET ?follow=1: SSE), GET/PUT/PATCH prefix/{id}/state) and, when
    /// options.metrics, the metrics, before `app` starts. `openapi_path` non-empty: GET there serves the routes'
    /// OpenAPI 3.1 document. Returns that document. Several Apps may mount one service; once per App (a second
    /// mount throws std::invalid_argument: a route or metric clash).
    std::string mount(App& app, std::string_view prefix = "/sessions", std::string_view openapi_path = "");

    /// A new session: `metadata_json` an object and `state_json` any JSON ("" for {}); ttl_ms 0 for the default.
    /// 201 with the session.
    void create(std::string principal, std::string metadata_json, std::string state_json, std::int64_t ttl_ms,
                SessionReplyCallback done);
    /// Appends in one transaction (consecutive seqs); 201 {"first_seq","last_seq","replayed":false}, or 200 with
    /// the original range when `idempotency_key` was seen on this session.
    void append(std::string principal, std::string id, std::vector<SessionEventInput> events,
                std::string idempotency_key, SessionReplyCallback done);
    /// 200 {"events":[{seq, role, content, created_at}...],"last_seq","next_after"}: seq > after, at most `limit`.
    void events(std::string principal, std::string id, std::int64_t after, std::size_t limit,
                SessionReplyCallback done);
    /// 200 with the state document as body; `version` is its version.
    void state(std::string principal, std::string id, SessionReplyCallback done);
    /// Replaces the state document (200, the new version). With `expected_version`, only when it is still the
    /// stored version: else 409 whose body names "current_version".
    void update_state(std::string principal, std::string id, std::string state_json,
                      std::optional<std::int64_t> expected_version, SessionReplyCallback done);
    /// Applies a JSON merge patch (RFC 7396) to the state document, with update_state's condition.
    void patch_state(std::string principal, std::string id, std::string patch_json,
                     std::optional<std::int64_t> expected_version, SessionReplyCallback done);

    /// Stops the sweeper, writes what a buffered store queued, closes the store (blocking; idempotent). Call
    /// after the Apps stopped; operations after it answer 503.
    void close();

  private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace slipstream
