// Status names and formatting.
#include "base/status.h"

#include <cstring>

namespace slipstream::base {

std::string_view status_code_name(StatusCode code) {
    switch (code) {
        case StatusCode::kOk:
            return "ok";
        case StatusCode::kInvalidArgument:
            return "invalid_argument";
        case StatusCode::kNotFound:
            return "not_found";
        case StatusCode::kAlreadyExists:
            return "already_exists";
        case StatusCode::kOutOfRange:
            return "out_of_range";
        case StatusCode::kResourceExhausted:
            return "resource_exhausted";
        case StatusCode::kUnavailable:
            return "unavailable";
        case StatusCode::kTimeout:
            return "timeout";
        case StatusCode::kCancelled:
            return "cancelled";
        case StatusCode::kIoError:
            return "io_error";
        case StatusCode::kInternal:
            return "internal";
    }
    return "unknown";
}

Status Status::from_errno(std::string_view what, int err) {
    char buf[128];
    // GNU strerror_r returns the message pointer (which may or may not be buf).
    const char* text = strerror_r(err, buf, sizeof buf);
    std::string msg(what);
    msg += ": ";
    msg += text;
    return {StatusCode::kIoError, std::move(msg)};
}

std::string Status::to_string() const {
    std::string out(status_code_name(code_));
    if (!message_.empty()) {
        out += ": ";
        out += message_;
    }
    return out;
}

}  // namespace slipstream::base
