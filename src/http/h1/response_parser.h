// parse_response: the HTTP/1.1 response head parser for clients (RFC 9112, strict), incremental and zero-copy.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

#include "http/h1/header.h"
#include "http/h1/parse_status.h"

namespace slipstream::http::h1 {

/// Bounds on one response head from an upstream.
struct ResponseLimits {
    /// Status line and header section together, through the final empty line's CRLF.
    std::size_t max_head_bytes = 64 * 1024;
    /// Header fields. The caller's array may lower it further.
    std::size_t max_header_count = 128;
};

/// How the response content is delimited (RFC 9112 §6.3, for responses).
enum class ResponseBody : std::uint8_t {
    kNone,           // no content: a HEAD request, 1xx, 204, 304
    kContentLength,  // exactly `content_length` bytes follow (which may be 0)
    kChunked,        // feed what follows to ChunkedDecoder
    kUntilClose,     // content runs to the end of the connection (no length given)
};

/// A parsed response head; every view points into the bytes given to parse_response.
struct ResponseHead {
    int version_minor = 1;            // HTTP/1.<minor>: 0 or 1
    int status = 0;                   // 100..599
    std::string_view reason;          // may be empty
    std::span<const Header> headers;  // in arrival order, inside the caller's array
    ResponseBody body = ResponseBody::kNone;
    std::uint64_t content_length = 0;  // kContentLength only
    /// The connection may carry another request after this response's content: HTTP/1.1 without
    /// "Connection: close", HTTP/1.0 with "keep-alive"; never with kUntilClose.
    bool keep_alive = false;

    bool interim() const { return status >= 100 && status < 200; }
};

/// What the request was, as far as the response framing depends on it.
struct ResponseContext {
    bool head_request = false;  // a HEAD request's response has no content whatever its fields say
};

/// Parses the response head at the start of `bytes`: kComplete with `consumed` = the head's length, kIncomplete
/// when `bytes` is a valid prefix (call again from the same start with more bytes), kError with a static reason
/// (its http_status is 502: what a gateway answers its own client).
///
/// Strict: CRLF only; status line `HTTP/1.0` or `HTTP/1.1` (other 1.x read as 1.1; other majors refused), one SP,
/// exactly three digits 100-599, then SP and a reason of VCHAR/obs-text/SP/HTAB (a missing reason, with or without
/// its SP, is accepted); no obs-fold, no whitespace before ':', no control bytes in values but HTAB; Content-Length
/// 1*DIGIT (repeats allowed only with the same value, as a list or as several fields), not with
/// Transfer-Encoding; Transfer-Encoding must end in "chunked" (another final coding would make the content run
/// to the close, which is refused: nothing here decodes it). 1xx heads are returned like any other (interim():
/// the caller reads the next head); 101 too (the caller refuses it unless it asked for an upgrade).
/// Pure and allocation-free; all views point into `bytes`.
ParseStatus parse_response(std::string_view bytes, const ResponseLimits& limits, const ResponseContext& context,
                           ResponseHead* out, Header* headers, std::size_t max_headers);

namespace response_errors {
inline constexpr ParseError kBadStatusLine{502, "malformed status line"};
inline constexpr ParseError kBadVersion{502, "unsupported HTTP version in status line"};
inline constexpr ParseError kBadStatus{502, "invalid status code"};
inline constexpr ParseError kBadLineEnding{502, "invalid line ending in response head"};
inline constexpr ParseError kHeadTooLarge{502, "response head too large"};
inline constexpr ParseError kTooManyHeaders{502, "too many response header fields"};
inline constexpr ParseError kBadHeaderName{502, "invalid response header field name"};
inline constexpr ParseError kSpaceBeforeColon{502, "whitespace before colon in response header field"};
inline constexpr ParseError kBadHeaderValue{502, "invalid response header field value"};
inline constexpr ParseError kObsFold{502, "obsolete line folding in response head"};
inline constexpr ParseError kBadContentLength{502, "invalid Content-Length in response"};
inline constexpr ParseError kLengthAndChunked{502, "both Content-Length and Transfer-Encoding in response"};
inline constexpr ParseError kBadTransferEncoding{502, "unsupported Transfer-Encoding in response"};
}  // namespace response_errors

}  // namespace slipstream::http::h1
