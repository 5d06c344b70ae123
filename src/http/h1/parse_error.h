// ParseError: the HTTP status and static reason a malformed or oversized request is answered with.
#pragma once

#include <cstdint>
#include <string_view>

namespace slipstream::http::h1 {

/// Why a request was refused. `reason` is static text that names no internals: safe to send to the client.
struct ParseError {
    std::uint16_t http_status = 0;
    std::string_view reason;

    friend constexpr bool operator==(const ParseError&, const ParseError&) = default;
};

/// Every error the parser and chunked decoder return. Compare with `==`.
namespace errors {
// Request line.
inline constexpr ParseError kBadRequestLine{400, "malformed request line"};
inline constexpr ParseError kBadMethod{400, "invalid method"};
inline constexpr ParseError kBadTarget{400, "invalid request target"};
inline constexpr ParseError kBadVersion{400, "malformed HTTP version"};
inline constexpr ParseError kUnsupportedVersion{505, "HTTP version not supported"};
inline constexpr ParseError kRequestLineTooLong{414, "request line too long"};
// Line endings (bare LF, CR without LF).
inline constexpr ParseError kBadLineEnding{400, "invalid line ending"};
// Header section.
inline constexpr ParseError kHeadersTooLarge{431, "header section too large"};
inline constexpr ParseError kTooManyHeaders{431, "too many header fields"};
inline constexpr ParseError kBadHeaderName{400, "invalid header field name"};
inline constexpr ParseError kSpaceBeforeColon{400, "whitespace before colon in header field"};
inline constexpr ParseError kBadHeaderValue{400, "invalid header field value"};
inline constexpr ParseError kObsFold{400, "obsolete line folding"};
inline constexpr ParseError kMissingHost{400, "missing Host header"};
inline constexpr ParseError kDuplicateHost{400, "multiple Host headers"};
inline constexpr ParseError kBadHost{400, "invalid Host header"};
// Message framing.
inline constexpr ParseError kBadContentLength{400, "invalid Content-Length"};
inline constexpr ParseError kDuplicateContentLength{400, "multiple Content-Length headers"};
inline constexpr ParseError kLengthAndChunked{400, "both Content-Length and Transfer-Encoding"};
inline constexpr ParseError kBadTransferEncoding{400, "invalid Transfer-Encoding"};
inline constexpr ParseError kChunkedNotFinal{400, "chunked is not the final transfer coding"};
inline constexpr ParseError kTransferEncodingHttp10{400, "Transfer-Encoding in an HTTP/1.0 request"};
inline constexpr ParseError kUnsupportedTransferCoding{501, "unsupported transfer coding"};
inline constexpr ParseError kBodyTooLarge{413, "request body too large"};
// Chunked body.
inline constexpr ParseError kBadChunkSize{400, "invalid chunk size"};
inline constexpr ParseError kBadChunkExtension{400, "invalid chunk extension"};
inline constexpr ParseError kChunkLineTooLong{400, "chunk header too long"};
inline constexpr ParseError kBadChunkEnd{400, "missing CRLF after chunk data"};
inline constexpr ParseError kBadTrailer{400, "invalid trailer field"};
inline constexpr ParseError kTrailerTooLarge{431, "trailer section too large"};
}  // namespace errors

}  // namespace slipstream::http::h1
