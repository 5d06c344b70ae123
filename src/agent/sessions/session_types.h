// The values the session store takes and gives: limits, sessions, events, state documents, pages.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace slipstream::agent::sessions {

/// Bounds on what one principal may keep. Each is a server knob (--session-*); passing one is a typed error
/// (SessionErrorCode::kLimit) naming it.
struct SessionLimits {
    std::uint64_t max_events_per_session = 100'000;
    std::uint64_t max_event_bytes = 64 * 1024;     // role + compact content JSON of one event
    std::uint64_t max_state_bytes = 256 * 1024;    // compact state document
    std::uint64_t max_metadata_bytes = 16 * 1024;  // compact metadata document
    std::uint64_t max_sessions_per_principal = 1'000;
    std::uint64_t max_batch_events = 1'000;          // events in one append
    std::int64_t default_ttl_ms = 24LL * 3'600'000;  // a session lives this long after its last write
    std::int64_t max_ttl_ms = 30LL * 24 * 3'600'000;
};

/// One session as stored, without its events and state document.
struct SessionInfo {
    std::string id;
    std::string owner;
    std::string metadata_json;  // compact JSON
    std::int64_t state_version = 0;
    std::int64_t last_seq = 0;  // the seq of the newest event; 0 when none
    std::int64_t ttl_ms = 0;
    std::int64_t created_at_ms = 0;
    std::int64_t updated_at_ms = 0;
    std::int64_t expires_at_ms = 0;
};

/// What create() needs besides the owner. Empty JSON texts mean {} (metadata) and {} (state).
struct NewSession {
    std::string metadata_json = {};
    std::string state_json = {};
    std::int64_t ttl_ms = 0;  // 0: SessionLimits::default_ttl_ms
};

/// One event to append: who spoke (user, assistant, tool...) and any JSON.
struct NewEvent {
    std::string role;
    std::string content_json;
};

/// An event of the log; seq counts from 1 in each session, without holes.
struct EventRecord {
    std::int64_t seq = 0;
    std::string role;
    std::string content_json;
    std::int64_t created_at_ms = 0;
};

/// The seq range an append was given. `replayed`: the idempotency key was seen before; nothing was added and
/// the range is the original one.
struct AppendResult {
    std::int64_t first_seq = 0;
    std::int64_t last_seq = 0;
    bool replayed = false;
};

/// The state document and the version a conditional write must name.
struct StateDocument {
    std::int64_t version = 0;
    std::string state_json = {};
};

/// A page of a principal's sessions in id order; `next_after` is the cursor of the next page (empty: none).
struct SessionPage {
    std::vector<SessionInfo> sessions;
    std::string next_after;
};

/// Events after a cursor; `last_seq` is the session's newest seq (a reader is caught up at it).
struct EventPage {
    std::vector<EventRecord> events;
    std::int64_t last_seq = 0;
};

}  // namespace slipstream::agent::sessions
