// MultipartParser: incremental multipart/form-data parser over bytes, with limits and precise errors.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "base/status.h"
#include "http/multipart/form_error.h"
#include "http/multipart/form_limits.h"
#include "http/multipart/part_head.h"
#include "http/multipart/part_sink.h"

namespace slipstream::http::multipart {

/// The boundary parameter of a multipart/form-data Content-Type, or empty when the header is not
/// multipart/form-data or the boundary is missing or unusable (empty, over 200 bytes, CR/LF/NUL).
std::string boundary_from_content_type(std::string_view content_type);

/// Feed the body in pieces of any size (a byte at a time works); the sink sees the same parts whatever the
/// split. A preamble before the first delimiter and an epilogue after the closing one are ignored (RFC 2046);
/// whitespace after a delimiter is allowed. Bytes of a part arrive as views into the fed chunk (or into the
/// parser's own delimiter text, for bytes that looked like a delimiter and were not), never copied.
/// Errors are sticky: after one, feed() and finish() return it again. Not thread-safe; no allocation per byte.
class MultipartParser {
  public:
    /// `boundary` without the leading "--". An unusable boundary fails the first feed() with kMissingBoundary.
    MultipartParser(std::string_view boundary, const FormLimits& limits, PartSink& sink);

    /// Consumes all of `chunk`. Errors: InvalidArgument (grammar, missing name), OutOfRange (a limit), or the
    /// status a sink returned (kind kSinkFailed).
    [[nodiscard]] base::Status feed(std::string_view chunk);
    /// The body ended: an error (kTruncated) unless the closing delimiter was seen.
    [[nodiscard]] base::Status finish();

    /// The error kind and message after a failure; kind kNone otherwise.
    const FormError& error() const { return error_; }
    std::size_t fields() const { return fields_; }
    std::size_t files() const { return files_; }

  private:
    enum class State : unsigned char {
        kPreamble,        // before the first delimiter: bytes are dropped
        kAfterDelimiter,  // just after "--boundary": "--", padding or CRLF
        kPadding,         // spaces/tabs after a delimiter
        kExpectLf,        // saw CR after a delimiter
        kCloseDash,       // saw the first '-' of "--"
        kHeaders,         // reading a part's header block
        kBody,            // inside a part's body
        kEpilogue,        // after the closing delimiter: bytes are dropped
        kError,
    };

    base::Status fail(FormErrorKind kind, std::string message);
    base::Status sink_failed(base::Status st);
    base::Status scan(std::string_view in, std::size_t& i);
    base::Status emit(std::string_view data);
    base::Status on_delimiter();
    base::Status read_headers(std::string_view in, std::size_t& i);
    base::Status begin_part(std::string_view block);
    base::Status after_delimiter(char c);

    std::string delimiter_;  // "\r\n--" + boundary
    const FormLimits limits_;
    PartSink& sink_;
    State state_ = State::kPreamble;
    std::size_t matched_ = 2;  // bytes of delimiter_ matched so far; the body starts as if after a CRLF
    std::string header_block_;
    PartHead head_;
    std::size_t part_bytes_ = 0;
    std::size_t fields_ = 0;
    std::size_t files_ = 0;
    FormError error_;
    base::Status status_;
};

}  // namespace slipstream::http::multipart
