// Decision service errors as HTTP answers: application/problem+json, never an internal message.
#pragma once

#include "agent/decide/decide_error.h"
#include "slipstream/response.h"

namespace slipstream::agent::decide {

/// kNotFound 404; kBadSpec 400 and kInvalid 422, both with "pointer" (where in the body); kConflict 409 (with
/// "currentVersion" for a stale spec version); kLimit 413 for a size or a batch and 409 for "capsules", with
/// "limit" and "max"; kUnavailable 503 with Retry-After: 1; kInternal 500. The detail of the last two is generic
/// (the cause is logged).
Response decide_problem(const DecideError& error);
/// sessions::problem(status, detail) with `members` (already JSON: ,"name":value...) added to its body.
Response with_members(int status, const std::string& detail, const std::string& members);

}  // namespace slipstream::agent::decide
