// Status: the error value of the data plane, a closed code enum plus a message.
#pragma once

#include <string>
#include <string_view>
#include <utility>

namespace slipstream::base {

/// Closed set of error codes. Add a code only with a named constructor and an is_x() below.
enum class StatusCode : unsigned char {
    kOk = 0,
    kInvalidArgument,    // malformed input
    kNotFound,           // lookup missed
    kAlreadyExists,      // duplicate registration
    kOutOfRange,         // a limit was exceeded
    kResourceExhausted,  // out of a bounded resource (fds, buffers, slots)
    kUnavailable,        // peer gone, try again later
    kTimeout,            // a deadline passed
    kCancelled,          // stopped on purpose
    kIoError,            // a system call failed
    kInternal,           // a bug: never shown to clients
};

std::string_view status_code_name(StatusCode code);

/// The result of an operation that returns no value. Cheap to copy when ok (no allocation).
class [[nodiscard]] Status {
  public:
    Status() = default;

    static Status ok() { return Status(); }
    static Status invalid_argument(std::string msg) { return {StatusCode::kInvalidArgument, std::move(msg)}; }
    static Status not_found(std::string msg) { return {StatusCode::kNotFound, std::move(msg)}; }
    static Status already_exists(std::string msg) { return {StatusCode::kAlreadyExists, std::move(msg)}; }
    static Status out_of_range(std::string msg) { return {StatusCode::kOutOfRange, std::move(msg)}; }
    static Status resource_exhausted(std::string msg) { return {StatusCode::kResourceExhausted, std::move(msg)}; }
    static Status unavailable(std::string msg) { return {StatusCode::kUnavailable, std::move(msg)}; }
    static Status timeout(std::string msg) { return {StatusCode::kTimeout, std::move(msg)}; }
    static Status cancelled(std::string msg) { return {StatusCode::kCancelled, std::move(msg)}; }
    static Status io_error(std::string msg) { return {StatusCode::kIoError, std::move(msg)}; }
    /// Builds an I/O error from an errno value: "<what>: <strerror>".
    static Status from_errno(std::string_view what, int err);
    static Status internal(std::string msg) { return {StatusCode::kInternal, std::move(msg)}; }

    bool is_ok() const { return code_ == StatusCode::kOk; }
    bool is_invalid_argument() const { return code_ == StatusCode::kInvalidArgument; }
    bool is_not_found() const { return code_ == StatusCode::kNotFound; }
    bool is_already_exists() const { return code_ == StatusCode::kAlreadyExists; }
    bool is_out_of_range() const { return code_ == StatusCode::kOutOfRange; }
    bool is_resource_exhausted() const { return code_ == StatusCode::kResourceExhausted; }
    bool is_unavailable() const { return code_ == StatusCode::kUnavailable; }
    bool is_timeout() const { return code_ == StatusCode::kTimeout; }
    bool is_cancelled() const { return code_ == StatusCode::kCancelled; }
    bool is_io_error() const { return code_ == StatusCode::kIoError; }
    bool is_internal() const { return code_ == StatusCode::kInternal; }

    StatusCode code() const { return code_; }
    const std::string& message() const { return message_; }
    /// "<code name>: <message>", for logs.
    std::string to_string() const;

    /// Explicitly drops a status whose failure is acceptable at the call site.
    void ignore_error() const {}

  private:
    Status(StatusCode code, std::string msg) : code_(code), message_(std::move(msg)) {}

    StatusCode code_ = StatusCode::kOk;
    std::string message_;
};

}  // namespace slipstream::base

/// Returns the status from the enclosing function when it is not ok.
#define SLIPSTREAM_RETURN_IF_ERROR(expr)                \
    do {                                                \
        ::slipstream::base::Status _ss_status = (expr); \
        if (!_ss_status.is_ok()) return _ss_status;     \
    } while (0)
