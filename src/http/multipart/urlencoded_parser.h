// UrlencodedParser: incremental application/x-www-form-urlencoded parser with limits.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "base/status.h"
#include "http/multipart/form_error.h"
#include "http/multipart/form_limits.h"
#include "http/multipart/part_sink.h"

namespace slipstream::http::multipart {

/// Splits on '&' (empty pieces are skipped), the name ends at the first '=' (a piece without one is a name
/// with an empty value), '+' is a space and %XX a byte (a malformed escape stays as is), as python-multipart
/// and Starlette read forms. Feed in pieces of any size; a pair is delivered once its '&' (or finish()) arrives.
/// Buffers one pair at most, bounded by max_field_size (name + value, raw). Errors are sticky.
class UrlencodedParser {
  public:
    UrlencodedParser(const FormLimits& limits, FieldSink& sink);

    /// Errors: OutOfRange (kTooManyFields, kFieldTooLarge) or the sink's status (kSinkFailed).
    [[nodiscard]] base::Status feed(std::string_view chunk);
    /// Delivers the last pair.
    [[nodiscard]] base::Status finish();

    const FormError& error() const { return error_; }
    std::size_t fields() const { return fields_; }

  private:
    base::Status append(std::string_view raw);
    base::Status end_pair();
    base::Status fail(FormErrorKind kind, std::string message, bool limit);

    const FormLimits limits_;
    FieldSink& sink_;
    std::string pair_;  // the raw bytes of the pair being read
    std::string name_, value_;
    std::size_t fields_ = 0;
    FormError error_;
    base::Status status_;
};

/// Percent-decodes `raw` into `out` (cleared first); '+' becomes a space.
void form_unquote(std::string_view raw, std::string& out);

}  // namespace slipstream::http::multipart
