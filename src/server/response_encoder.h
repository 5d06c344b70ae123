// Encodes a Response (or an engine error) as HTTP/1.1 bytes: status line, headers, body.
#pragma once

#include <string>
#include <string_view>

#include "http/h1/request_head.h"
#include "server/output_queue.h"
#include "server/problem.h"
#include "slipstream/response.h"

namespace slipstream::server {

/// Per-response facts the encoder needs besides the Response itself.
struct EncodeContext {
    http::h1::Version version = http::h1::Version::kHttp11;
    bool keep_alive = true;       // false: send "Connection: close"
    bool head_only = false;       // HEAD: headers (with Content-Length) but no body
    std::string_view date;        // IMF-fixdate
    std::string_view server;      // Server header value; empty: none
    std::string_view request_id;  // echoed as X-Request-ID when non-empty
};

/// True when the encoder accepts the response: status 100..999 and valid, non-framing header fields.
bool response_valid(const Response& response);

/// Appends the whole response to `out`. Header fields with invalid names or values (CR/LF injection),
/// and framing fields (Content-Length, Transfer-Encoding, Connection) set by the handler, are refused:
/// the response becomes a 500 problem instead and the function returns false.
bool encode_response(Response&& response, const EncodeContext& ctx, OutputQueue& out);

/// Appends an engine error as a problem+json response.
void encode_error(const HttpError& error, const EncodeContext& ctx, OutputQueue& out, std::string_view allow = {});

/// Appends the head of a streamed response (chunked on HTTP/1.1, close-delimited on HTTP/1.0).
bool encode_stream_head(Response&& head, const EncodeContext& ctx, OutputQueue& out);
/// Appends one chunk of a streamed body (chunk framing on HTTP/1.1).
void encode_stream_chunk(std::string_view data, http::h1::Version version, OutputQueue& out);
/// Appends the end of a streamed body (the last chunk on HTTP/1.1).
void encode_stream_end(http::h1::Version version, OutputQueue& out);

}  // namespace slipstream::server
