// Session errors as HTTP answers: one application/problem+json body per error, never an internal message.
#pragma once

#include <string_view>

#include "agent/sessions/session_error.h"
#include "slipstream/response.h"

namespace slipstream::agent::sessions {

/// {"type":"about:blank","title":<reason>,"status":N,"detail":...} as application/problem+json.
Response problem(int status, std::string_view detail);

/// kNotFound 404, kForbidden 403, kConflict 409 (with "current_version" and the current ETag), kLimit 413 for a
/// size ("event_bytes", "state_bytes", "metadata_bytes", "batch_events") and 409 for a count
/// ("events_per_session", "sessions_per_principal"), both with "limit" and "max"; kInvalid 422; kUnavailable 503
/// with Retry-After: 1; kInternal 500. The detail of the last two is generic (the cause is logged).
Response problem_for(const SessionError& error);

/// A request that did not validate (RouteSpec::forward_errors hands over the FastAPI-shaped body): 422 with the
/// validator's list as "errors", or 400 for a body that could not be parsed at all.
Response validation_problem(std::string_view forwarded_body);

/// The ETag of a state version: "\"<version>\"".
std::string state_etag(std::int64_t version);

}  // namespace slipstream::agent::sessions
