// FormLimits: the bounds a form parser enforces on untrusted input, with their defaults.
#pragma once

#include <cstddef>
#include <limits>

namespace slipstream::http::multipart {

/// Defaults follow Starlette (max_fields, max_files, max_part_size); the header bounds are ours.
struct FormLimits {
    std::size_t max_fields = 1000;             // non-file fields (urlencoded pairs or multipart parts)
    std::size_t max_files = 1000;              // multipart parts with a filename
    std::size_t max_field_size = 1024 * 1024;  // bytes of one field (urlencoded: name + value)
    std::size_t max_file_size = std::numeric_limits<std::size_t>::max();  // bytes of one file part
    std::size_t max_part_header_bytes = 16 * 1024;  // the header block of one part, CRLFs included
    std::size_t max_part_headers = 32;              // header lines of one part
};

}  // namespace slipstream::http::multipart
