// follow_events(): GET /sessions/{id}/events?follow=1, the event log as Server-Sent Events, live.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "agent/sessions/session_store.h"
#include "slipstream/responder.h"

namespace slipstream::agent::sessions {

struct FollowOptions {
    std::size_t page = 500;  // events read per statement while catching up
};

/// Streams the events of session `id` after seq `after` to `responder`: first a read decides the answer (a
/// problem such as 403 or 404 before any stream starts), then an event stream (text/event-stream) sends each
/// event as `id: <seq>` and `data: {"seq","role","content","created_at"}`, the backlog first, then each event
/// as it is appended (the store's SessionChanges wake the follower: no polling). Keep-alive comments come from
/// the engine (ServerOptions::sse_heartbeat_ms). The stream ends when the session is deleted or expired (seen at
/// the next wake: a delete wakes at once, an expiry at the next periodic re-check, SessionSweeper), or when a
/// read fails (the client resumes with Last-Event-ID); the follower goes when the client leaves.
void follow_events(std::shared_ptr<SessionStore> store, std::string principal, std::string id, std::int64_t after,
                   std::shared_ptr<Responder> responder, FollowOptions options = {});

}  // namespace slipstream::agent::sessions
