// mount_session_routes(): the session store's HTTP routes on any App.
#pragma once

#include <cstddef>
#include <memory>
#include <string>

#include "agent/sessions/session_store.h"
#include "slipstream/app.h"

namespace slipstream::agent::sessions {

struct SessionRoutesOptions {
    std::string prefix = "/sessions";
    std::size_t default_page = 50;  // sessions or events per page when ?limit= is absent
    std::size_t max_page = 1000;    // largest ?limit=
    std::string openapi_path;       // non-empty: GET there serves the routes' OpenAPI 3.1 document
    bool metrics = true;            // the store's slipstream_sessions_* series on /metrics (session_metrics.h)
};

/// The principal a request acts as: the authenticated one (API key principal, JWT `sub`); with authentication
/// off, every request is the one principal "anonymous"; with it on, a request without credentials has none
/// (the routes answer 401).
inline constexpr const char* kAnonymousPrincipal = "anonymous";

/// Registers (each answered from the database's thread through a Responder; bodies validated by JSON Schema):
///   POST   /sessions                {metadata?, state?, ttl_ms?}        201 + Location
///   GET    /sessions?after=&limit=  the principal's sessions, id order  200
///   DELETE /sessions                every session of the principal       200 {"deleted":N}
///   GET    /sessions/{id}                                               200
///   DELETE /sessions/{id}                                               204
///   POST   /sessions/{id}/events    {role, content} | {events:[...]}, Idempotency-Key header   201 (200 replayed)
///   GET    /sessions/{id}/events?after=<seq>&limit=                     200
///   GET    /sessions/{id}/events?follow=1&after=<seq>, Last-Event-ID    200 text/event-stream (session_follow.h)
///   GET    /sessions/{id}/state     the document, ETag "<version>"      200
///   PUT    /sessions/{id}/state     the new document, If-Match          200 (409 stale)
///   PATCH  /sessions/{id}/state     a JSON merge patch, If-Match        200 (409 stale)
/// Errors are application/problem+json (session_problem.h). Returns the routes' OpenAPI 3.1 document (JSON; tag
/// "sessions"), served at `openapi_path` when set. Throws std::invalid_argument like App's route registration (a
/// clash with an existing route or metric: mount once per App).
std::string mount_session_routes(App& app, std::shared_ptr<SessionStore> store, SessionRoutesOptions options = {});

}  // namespace slipstream::agent::sessions
