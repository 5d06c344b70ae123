// FormError: why a form body was refused: a closed kind (for mapping to HTTP) and a client-safe message.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace slipstream::http::multipart {

enum class FormErrorKind : std::uint8_t {
    kNone = 0,
    kMissingBoundary,  // multipart Content-Type without a usable boundary
    kMalformed,        // bytes that do not follow the multipart grammar
    kMissingName,      // a part without Content-Disposition: form-data; name=...
    kTruncated,        // the body ended before the closing delimiter
    kSinkFailed,       // the sink refused a part (its own status is returned, e.g. an I/O error)
    kTooManyFields,    // FormLimits::max_fields
    kTooManyFiles,     // FormLimits::max_files
    kFieldTooLarge,    // FormLimits::max_field_size
    kFileTooLarge,     // FormLimits::max_file_size
    kHeaderTooLarge,   // FormLimits::max_part_header_bytes
    kTooManyHeaders,   // FormLimits::max_part_headers
};

/// A stable snake_case name for logs and tests ("too_many_files").
std::string_view form_error_name(FormErrorKind kind);

/// True for the kinds caused by a FormLimits bound (answered 413 by some servers, 400 by Starlette).
constexpr bool is_limit_error(FormErrorKind kind) {
    return kind >= FormErrorKind::kTooManyFields;
}

struct FormError {
    FormErrorKind kind = FormErrorKind::kNone;
    std::string message;  // Starlette's wording where Starlette has one

    bool ok() const { return kind == FormErrorKind::kNone; }
};

}  // namespace slipstream::http::multipart
