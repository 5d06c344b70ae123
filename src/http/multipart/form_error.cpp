// Names of the form error kinds.
#include "http/multipart/form_error.h"

namespace slipstream::http::multipart {

std::string_view form_error_name(FormErrorKind kind) {
    switch (kind) {
        case FormErrorKind::kNone:
            return "none";
        case FormErrorKind::kMissingBoundary:
            return "missing_boundary";
        case FormErrorKind::kMalformed:
            return "malformed";
        case FormErrorKind::kMissingName:
            return "missing_name";
        case FormErrorKind::kTruncated:
            return "truncated";
        case FormErrorKind::kSinkFailed:
            return "sink_failed";
        case FormErrorKind::kTooManyFields:
            return "too_many_fields";
        case FormErrorKind::kTooManyFiles:
            return "too_many_files";
        case FormErrorKind::kFieldTooLarge:
            return "field_too_large";
        case FormErrorKind::kFileTooLarge:
            return "file_too_large";
        case FormErrorKind::kHeaderTooLarge:
            return "header_too_large";
        case FormErrorKind::kTooManyHeaders:
            return "too_many_headers";
    }
    return "unknown";
}

}  // namespace slipstream::http::multipart
