// Limits: the size bounds the HTTP/1.1 parser and chunked decoder enforce on untrusted input.
#pragma once

#include <cstddef>
#include <cstdint>

namespace slipstream::http::h1 {

/// Bounds on one request. Each exceeded bound maps to the HTTP status named beside it.
struct Limits {
    /// Request line length without its CRLF; leading empty lines count toward it (414).
    std::size_t max_request_line = 8 * 1024;
    /// Header section from the first field line through the final empty line's CRLF (431).
    std::size_t max_header_bytes = 16 * 1024;
    /// Number of header fields (431). The caller's array may lower it further.
    std::size_t max_header_count = 100;
    /// Request content: Content-Length above it, or chunked data summing above it (413).
    std::uint64_t max_body = 1024 * 1024;
    /// One chunk-size line with its extensions, without CRLF (400).
    std::size_t max_chunk_line = 4 * 1024;
    /// The trailer section of a chunked body, including its final CRLF (431).
    std::size_t max_trailer_bytes = 8 * 1024;
};

}  // namespace slipstream::http::h1
