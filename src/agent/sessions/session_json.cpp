// Session bodies written with json::Writer; stored JSON (metadata, content) is already compact and goes in raw.
#include "agent/sessions/session_json.h"

#include "json/writer.h"

namespace slipstream::agent::sessions {

namespace {

void write_session(json::Writer& w, const SessionInfo& s) {
    w.begin_object();
    w.key("id");
    w.string(s.id);
    w.key("owner");
    w.string(s.owner);
    w.key("metadata");
    w.raw(s.metadata_json);
    w.key("state_version");
    w.int64(s.state_version);
    w.key("last_seq");
    w.int64(s.last_seq);
    w.key("ttl_ms");
    w.int64(s.ttl_ms);
    w.key("created_at");
    w.int64(s.created_at_ms);
    w.key("updated_at");
    w.int64(s.updated_at_ms);
    w.key("expires_at");
    w.int64(s.expires_at_ms);
    w.end_object();
}

}  // namespace

std::string session_json(const SessionInfo& session) {
    std::string out;
    json::Writer w(out);
    write_session(w, session);
    return out;
}

std::string session_page_json(const SessionPage& page) {
    std::string out;
    json::Writer w(out);
    w.begin_object();
    w.key("sessions");
    w.begin_array();
    for (const SessionInfo& s : page.sessions)
        write_session(w, s);
    w.end_array();
    w.key("next_after");
    if (page.next_after.empty()) {
        w.null();
    } else {
        w.string(page.next_after);
    }
    w.end_object();
    return out;
}

std::string append_json(const AppendResult& range) {
    std::string out;
    json::Writer w(out);
    w.begin_object();
    w.key("first_seq");
    w.int64(range.first_seq);
    w.key("last_seq");
    w.int64(range.last_seq);
    w.key("replayed");
    w.boolean(range.replayed);
    w.end_object();
    return out;
}

std::string event_json(const EventRecord& e) {
    std::string out;
    json::Writer w(out);
    w.begin_object();
    w.key("seq");
    w.int64(e.seq);
    w.key("role");
    w.string(e.role);
    w.key("content");
    w.raw(e.content_json);
    w.key("created_at");
    w.int64(e.created_at_ms);
    w.end_object();
    return out;
}

std::string event_page_json(const EventPage& page, std::int64_t after) {
    std::string out;
    json::Writer w(out);
    w.begin_object();
    w.key("events");
    w.begin_array();
    for (const EventRecord& e : page.events)
        w.raw(event_json(e));
    w.end_array();
    w.key("last_seq");
    w.int64(page.last_seq);
    w.key("next_after");
    w.int64(page.events.empty() ? after : page.events.back().seq);
    w.end_object();
    return out;
}

}  // namespace slipstream::agent::sessions
