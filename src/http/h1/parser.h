// parse_request: the HTTP/1.1 request head parser (RFC 9112, strict), one pure incremental zero-copy function.
#pragma once

#include <cstddef>
#include <string_view>

#include "http/h1/header.h"
#include "http/h1/limits.h"
#include "http/h1/parse_status.h"
#include "http/h1/request_head.h"

namespace slipstream::http::h1 {

/// Parses the request head at the start of `bytes`.
///
/// Returns kComplete with `consumed` = the head's length (the content, if any, starts right after);
/// kIncomplete when `bytes` is a valid prefix of a head (call again from the same start with more bytes);
/// kError with the status to answer (400, 413, 414, 431, 501, 505) and a static reason; then close.
///
/// Pure and allocation-free: `out` and `headers[0, max_headers)` are written, all views point into `bytes`.
/// On kIncomplete/kError their contents are unspecified. Fields beyond min(max_headers,
/// limits.max_header_count) are an error (431). Each call re-parses from the start of `bytes`; every limit
/// bounds that work. Call it again only when new bytes arrived.
///
/// Strictness (RFC 9112 unless noted): CRLF only, never a bare LF or bare CR; exactly one SP between the three
/// parts of the request line; request-target made of RFC 3986 characters (no '#', no raw UTF-8, no quotes);
/// "HTTP/1.0" or "HTTP/1.1" (other 1.x read as 1.1, other majors 505); no obs-fold, no whitespace before ':',
/// no control bytes but HTAB in values; Host required exactly once in HTTP/1.1; Content-Length exactly once
/// and 1*DIGIT (a repeated one is refused even when equal); not both Content-Length and Transfer-Encoding;
/// Transfer-Encoding must end in a single "chunked" (else 400), other codings before it are 501.
/// Empty lines (CRLF) before the request line are skipped and counted in `consumed`, as RFC 9112 §2.2 allows;
/// they count toward limits.max_request_line.
ParseStatus parse_request(std::string_view bytes, const Limits& limits, RequestHead* out, Header* headers,
                          std::size_t max_headers);

}  // namespace slipstream::http::h1
