// DbResult<T>: a query's value or its typed error (Status plus SQLSTATE, server message and position).
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <variant>

#include "base/assert.h"
#include "base/status.h"
#include "store/result_set.h"

namespace slipstream::store {

/// What the database said about a failed statement. Fields the server did not send stay empty / 0.
struct DbError {
    std::string sqlstate;  // five characters ("23505"); empty when the error did not come from the server
    std::string message;   // the server's primary message, or the client's reason
    std::string detail;
    std::string hint;
    int position = 0;              // 1-based character offset of the error in the statement; 0 when none
    int native_code = 0;           // SQLite's extended result code (SQLITE_CONSTRAINT_UNIQUE, ...); 0 for PostgreSQL
    bool connection_lost = false;  // the connection broke: the statement may or may not have run
};

/// The Status code a SQLSTATE maps to: 23505 (unique) kAlreadyExists; 08xxx, 57P0x, 40001/40P01 (retryable)
/// kUnavailable; 57014 (query_canceled) kCancelled; 53xxx kResourceExhausted; 0A000, XXxxx, 58xxx, F0xxx
/// kInternal; every other class (data, syntax, constraint, transaction state, ...) kInvalidArgument.
base::StatusCode status_code_for_sqlstate(std::string_view sqlstate);

/// Builds the Status of a server error: the SQLSTATE's code, message "<message> (SQLSTATE <sqlstate>)".
base::Status status_for_error(const DbError& error);

/// A statement's value (ResultSet for query(), JSON bytes for fetch_json()) or a non-ok Status with the
/// DbError behind it. Like base::Result, an error cannot be ignored silently ([[nodiscard]]).
template <typename T>
class [[nodiscard]] DbResult {
  public:
    DbResult(T value) : data_(std::in_place_index<0>, std::move(value)) {}  // NOLINT: implicit on purpose
    DbResult(base::Status status, DbError error = {})                       // NOLINT
        : data_(std::in_place_index<1>, Failure{std::move(status), std::move(error)}) {
        SLIPSTREAM_ASSERT(!std::get<1>(data_).status.is_ok());
    }

    bool is_ok() const { return data_.index() == 0; }
    /// Status::ok() when a value is held.
    base::Status status() const { return is_ok() ? base::Status::ok() : std::get<1>(data_).status; }
    /// The error's details (empty fields when ok or when the error is the client's).
    const DbError& error() const {
        static const DbError kNone;
        return is_ok() ? kNone : std::get<1>(data_).error;
    }

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
    T* operator->() { return &value(); }
    const T* operator->() const { return &value(); }

  private:
    struct Failure {
        base::Status status;
        DbError error;
    };
    std::variant<T, Failure> data_;
};

using QueryResult = DbResult<ResultSet>;
/// fetch_json's value: a JSON array of row objects, as bytes.
using JsonResult = DbResult<std::string>;

}  // namespace slipstream::store
