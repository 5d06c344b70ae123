// The JSON bodies of the session routes: sessions, pages, append ranges, events.
#pragma once

#include <string>

#include "agent/sessions/session_types.h"

namespace slipstream::agent::sessions {

/// {"id","owner","metadata","state_version","last_seq","ttl_ms","created_at","updated_at","expires_at"}
/// (times in epoch milliseconds).
std::string session_json(const SessionInfo& session);
/// {"sessions":[...],"next_after":"<id>"|null}
std::string session_page_json(const SessionPage& page);
/// {"first_seq","last_seq","replayed"}
std::string append_json(const AppendResult& range);
/// {"seq","role","content","created_at"}: one event, as in a page and as the data of a followed event.
std::string event_json(const EventRecord& event);
/// {"events":[{"seq","role","content","created_at"}...],"last_seq":N,"next_after":N}: next_after is the cursor
/// of the next read (the last event's seq, or `after` when there were none).
std::string event_page_json(const EventPage& page, std::int64_t after);

}  // namespace slipstream::agent::sessions
