// Response serializer: status line, headers and framing into a base::Buffer or a caller's char buffer,
// plus chunk framing for streamed bodies.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

#include "base/buffer.h"
#include "http/h1/header.h"
#include "http/h1/request_head.h"

namespace slipstream::http::h1 {

/// How the response content is delimited.
enum class ResponseFraming : std::uint8_t {
    kNone,           // no content and no length field (forced for 1xx, 204 and 304)
    kContentLength,  // "Content-Length: n" (for HEAD: the GET length; the caller then sends no content)
    kChunked,        // "Transfer-Encoding: chunked"; becomes kUntilClose for an HTTP/1.0 request
    kUntilClose,     // content ends when the connection closes (forces keep_alive off)
};

/// What to write. Views must stay valid during the write call only.
struct ResponseHead {
    int status = 200;                 // 100-999; anything else is written as 500
    std::string_view reason;          // empty: reason_phrase(status)
    std::span<const Header> headers;  // handler fields, already checked with validate_field; must not contain
                                      // framing fields (is_framing_field), except Connection/Upgrade on a 101
    ResponseFraming framing = ResponseFraming::kContentLength;
    std::uint64_t content_length = 0;  // kContentLength only
    bool keep_alive = true;            // the connection stays open after this response
    Version request_version = Version::kHttp11;
    std::string_view date;    // DateCache::get(); empty: no Date field
    std::string_view server;  // e.g. "slipstream"; empty: no Server field
    // Content written right behind the head, in the same space, when the written framing is kContentLength
    // (its size must then equal content_length); left out for a response without content (1xx, 204, 304).
    // Empty: the caller sends the content itself (a large or file body) or none (HEAD).
    std::string_view content;
};

/// The framing and connection handling actually written (rules applied: status, version, framing).
struct WrittenHead {
    ResponseFraming framing = ResponseFraming::kNone;
    bool keep_alive = false;
    std::size_t bytes = 0;         // bytes written (head and content); 0 when a char buffer was too small
    bool content_written = false;  // ResponseHead::content was written behind the head
};

/// Exact size write_response_head will need for `head` (with its content when that is written).
std::size_t response_head_size(const ResponseHead& head);

/// Writes "HTTP/1.1 <status> <reason>\r\n", Date, Server, the handler fields, Content-Length or
/// Transfer-Encoding, Connection when it differs from the version's default, and the empty line.
/// The status line always says HTTP/1.1 (RFC 9110 §6.2), also to HTTP/1.0 clients.
WrittenHead write_response_head(const ResponseHead& head, base::Buffer& out);
/// As above into `out`; writes nothing and returns bytes == 0 when out.size() < response_head_size(head).
WrittenHead write_response_head(const ResponseHead& head, std::span<char> out);
/// As above, planning the head once: `space(context, size)` returns where to write its `size` bytes (the
/// caller may reserve more behind them, e.g. for the body); nullptr writes nothing and returns bytes == 0.
/// Saves the second plan of response_head_size() followed by write_response_head().
using HeadSpaceFn = char* (*)(void* context, std::size_t head_size);
WrittenHead write_response_head(const ResponseHead& head, HeadSpaceFn space, void* context);

/// The interim response sent before reading content when a request has expect_continue.
inline constexpr std::string_view kContinueResponse = "HTTP/1.1 100 Continue\r\n\r\n";

/// Largest chunk header: 16 hex digits and CRLF.
inline constexpr std::size_t kMaxChunkHeaderSize = 18;
/// Ends every chunk's data.
inline constexpr std::string_view kChunkEnd = "\r\n";
/// The last chunk with an empty trailer section: ends a chunked body.
inline constexpr std::string_view kLastChunk = "0\r\n\r\n";

/// Writes the chunk header for `size` bytes ("1a2b\r\n") into `out`; returns its view. For writev:
/// header, data, kChunkEnd. `size` must not be 0 (an empty chunk is the last chunk).
std::string_view chunk_header(std::uint64_t size, char (&out)[kMaxChunkHeaderSize]);

/// Appends one whole chunk (header, data, CRLF); appends nothing for empty `data`.
void append_chunk(base::Buffer& out, std::string_view data);

/// Appends kLastChunk.
inline void append_last_chunk(base::Buffer& out) {
    out.append(kLastChunk);
}

}  // namespace slipstream::http::h1
