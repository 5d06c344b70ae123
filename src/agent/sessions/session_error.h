// SessionError and SessionResult<T>: the store's typed outcomes (not found, forbidden, conflict, limit, ...).
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <variant>

#include "base/assert.h"

namespace slipstream::agent::sessions {

/// Closed set: each maps to one HTTP status in session_problem.cpp.
enum class SessionErrorCode : std::uint8_t {
    kNotFound,     // no such session, or it expired
    kForbidden,    // the session belongs to another principal
    kConflict,     // a stale expected state version; `current_version` holds the stored one
    kLimit,        // a SessionLimits bound; `limit` names it, `limit_value` is its value
    kInvalid,      // input the store refuses (not JSON, a patch that is not an object, a bad TTL)
    kUnavailable,  // the database is unreachable or busy: try again
    kBusy,         // the buffered write queue is full: try again after `retry_after_s`
    kInternal,     // anything else; `detail` is for logs only
};

struct SessionError {
    SessionErrorCode code = SessionErrorCode::kInternal;
    std::string detail;                // client-safe, except for kInternal and kUnavailable
    std::int64_t current_version = 0;  // kConflict
    std::string limit;                 // kLimit: "events_per_session", "event_bytes", "state_bytes", ...
    std::uint64_t limit_value = 0;     // kLimit
    std::int64_t retry_after_s = 0;    // kBusy

    static SessionError make(SessionErrorCode code, std::string detail) {
        SessionError e;
        e.code = code;
        e.detail = std::move(detail);
        return e;
    }
    static SessionError not_found() { return make(SessionErrorCode::kNotFound, "no such session"); }
    static SessionError forbidden() {
        return make(SessionErrorCode::kForbidden, "the session belongs to another principal");
    }
    static SessionError conflict(std::int64_t current) {
        SessionError e =
            make(SessionErrorCode::kConflict, "the state changed: version " + std::to_string(current) + " is current");
        e.current_version = current;
        return e;
    }
    static SessionError over_limit(std::string name, std::uint64_t value, std::string what) {
        SessionError e = make(SessionErrorCode::kLimit, std::move(what));
        e.limit = std::move(name);
        e.limit_value = value;
        return e;
    }
    /// An append that would take the session past `max_events`.
    static SessionError too_many_events(std::uint64_t max_events) {
        return over_limit("events_per_session", max_events,
                          "the session would hold more than " + std::to_string(max_events) + " events");
    }
    static SessionError invalid(std::string what) { return make(SessionErrorCode::kInvalid, std::move(what)); }
    static SessionError unavailable(std::string why) { return make(SessionErrorCode::kUnavailable, std::move(why)); }
    static SessionError busy(std::string what, std::int64_t retry_after_s) {
        SessionError e = make(SessionErrorCode::kBusy, std::move(what));
        e.retry_after_s = retry_after_s;
        return e;
    }
    static SessionError internal(std::string why) { return make(SessionErrorCode::kInternal, std::move(why)); }
};

/// A value or an error of the agent services (SessionError, decide's DecideError); the error cannot be ignored
/// silently.
template <typename T, typename E>
class [[nodiscard]] ValueOr {
  public:
    ValueOr(T value) : data_(std::in_place_index<0>, std::move(value)) {}  // NOLINT: implicit
    ValueOr(E error) : data_(std::in_place_index<1>, std::move(error)) {}  // NOLINT
    bool is_ok() const { return data_.index() == 0; }
    T& value() & {
        SLIPSTREAM_ASSERT(is_ok());
        return std::get<0>(data_);
    }
    const T& value() const& {
        SLIPSTREAM_ASSERT(is_ok());
        return std::get<0>(data_);
    }
    T&& value() && {
        SLIPSTREAM_ASSERT(is_ok());
        return std::get<0>(std::move(data_));
    }
    const E& error() const {
        SLIPSTREAM_ASSERT(!is_ok());
        return std::get<1>(data_);
    }

  private:
    std::variant<T, E> data_;
};

/// A value or a SessionError.
template <typename T>
using SessionResult = ValueOr<T, SessionError>;

/// An operation that answers nothing but success.
struct Done {};

}  // namespace slipstream::agent::sessions
