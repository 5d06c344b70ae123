// DecideError and DecideResult<T>: the decision store's typed outcomes (not found, invalid with a pointer,
// conflict, limit, unavailable, internal).
#pragma once

#include <cstdint>
#include <string>
#include <utility>

#include "agent/sessions/session_error.h"
#include "base/status.h"

namespace slipstream::agent::decide {

/// Closed set: each maps to one HTTP status in decide_problem.cpp.
enum class DecideErrorCode : std::uint8_t {
    kNotFound,     // no such capsule or decision
    kBadSpec,      // the spec (after the merge patch) is invalid: 400 naming the field
    kInvalid,      // a request the capsule refuses: 422 naming the field
    kConflict,     // an eventId reused with another body, a stale spec version
    kLimit,        // a knob's bound; `limit` names it, `limit_value` is its value
    kUnavailable,  // the database is unreachable or busy: try again
    kInternal,     // anything else; `detail` is for logs only
};

struct DecideError {
    DecideErrorCode code = DecideErrorCode::kInternal;
    std::string detail;   // client-safe, except for kInternal and kUnavailable
    std::string pointer;  // kBadSpec, kInvalid: where, as a JSON pointer into the body
    std::string limit;    // kLimit
    std::uint64_t limit_value = 0;
    std::int64_t current_version = 0;  // kConflict of a spec version
    std::string members;               // kConflict: more JSON members for the problem body (",\"name\":value...")

    static DecideError make(DecideErrorCode code, std::string detail, std::string pointer = "") {
        DecideError e;
        e.code = code;
        e.detail = std::move(detail);
        e.pointer = std::move(pointer);
        return e;
    }
    static DecideError not_found(std::string what) { return make(DecideErrorCode::kNotFound, std::move(what)); }
    static DecideError bad_spec(std::string pointer, std::string message) {
        return make(DecideErrorCode::kBadSpec, std::move(message), std::move(pointer));
    }
    static DecideError invalid(std::string pointer, std::string message) {
        return make(DecideErrorCode::kInvalid, std::move(message), std::move(pointer));
    }
    static DecideError conflict(std::string what) { return make(DecideErrorCode::kConflict, std::move(what)); }
    static DecideError over_limit(std::string name, std::uint64_t value, std::string what) {
        DecideError e = make(DecideErrorCode::kLimit, std::move(what));
        e.limit = std::move(name);
        e.limit_value = value;
        return e;
    }
    static DecideError unavailable(std::string why) { return make(DecideErrorCode::kUnavailable, std::move(why)); }
    static DecideError internal(std::string why) { return make(DecideErrorCode::kInternal, std::move(why)); }
};

/// A failed statement: unreachable, busy or timed out -> kUnavailable; a unique key taken concurrently ->
/// kConflict; anything else kInternal (the database's message is for logs, never for clients).
inline DecideError error_from_status(const base::Status& status) {
    if (status.is_unavailable() || status.is_resource_exhausted() || status.is_timeout() || status.is_cancelled())
        return DecideError::unavailable(status.to_string());
    if (status.is_already_exists()) return DecideError::conflict("a concurrent request changed it; try again");
    return DecideError::internal(status.to_string());
}

/// A value or a DecideError; the error cannot be ignored silently.
template <typename T>
using DecideResult = sessions::ValueOr<T, DecideError>;

}  // namespace slipstream::agent::decide
