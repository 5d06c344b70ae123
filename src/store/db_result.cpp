// SQLSTATE classes to Status codes.
#include "store/db_result.h"

namespace slipstream::store {

base::StatusCode status_code_for_sqlstate(std::string_view s) {
    using base::StatusCode;
    if (s.size() != 5) return StatusCode::kInternal;
    if (s == "23505") return StatusCode::kAlreadyExists;
    if (s == "57014") return StatusCode::kCancelled;
    if (s == "40001" || s == "40P01") return StatusCode::kUnavailable;
    std::string_view cls = s.substr(0, 2);
    if (cls == "08") return StatusCode::kUnavailable;
    if (cls == "57") return StatusCode::kUnavailable;  // 57P01 admin shutdown, 57P02 crash shutdown, 57P03 starting
    if (cls == "53") return StatusCode::kResourceExhausted;
    if (cls == "0A" || cls == "XX" || cls == "58" || cls == "F0") return StatusCode::kInternal;
    return StatusCode::kInvalidArgument;
}

base::Status status_for_error(const DbError& error) {
    std::string msg = error.message;
    if (!error.sqlstate.empty()) {
        msg += " (SQLSTATE ";
        msg += error.sqlstate;
        msg += ')';
    }
    using base::Status;
    switch (status_code_for_sqlstate(error.sqlstate)) {
        case base::StatusCode::kAlreadyExists:
            return Status::already_exists(std::move(msg));
        case base::StatusCode::kCancelled:
            return Status::cancelled(std::move(msg));
        case base::StatusCode::kUnavailable:
            return Status::unavailable(std::move(msg));
        case base::StatusCode::kResourceExhausted:
            return Status::resource_exhausted(std::move(msg));
        case base::StatusCode::kInvalidArgument:
            return Status::invalid_argument(std::move(msg));
        default:
            return Status::internal(std::move(msg));
    }
}

}  // namespace slipstream::store
