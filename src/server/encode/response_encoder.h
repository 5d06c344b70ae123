// Encodes a Response (or an engine error) as HTTP/1.1 bytes: status line, headers, body.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "http/h1/request_head.h"
#include "http/h1/serializer.h"
#include "server/core/output_queue.h"
#include "server/core/problem.h"
#include "slipstream/response.h"

namespace slipstream::server {

class HeadCache;

/// Per-response facts the encoder needs besides the Response itself.
struct EncodeContext {
    http::h1::Version version = http::h1::Version::kHttp11;
    bool keep_alive = true;           // false: send "Connection: close"
    bool head_only = false;           // HEAD: headers (with Content-Length) but no body
    std::string_view date;            // IMF-fixdate
    std::string_view server;          // Server header value; empty: none
    std::string_view request_id;      // echoed as X-Request-ID when non-empty
    HeadCache* head_cache = nullptr;  // the connection's last head, replayed when equal (optional)
};

/// The last response head encoded on a connection, kept to be replayed. A head is a function of its inputs
/// alone, and a keep-alive client mostly repeats one request: the next response with equal inputs copies the
/// kept bytes instead of planning and writing them again (~200 instructions on `GET /hello`). The X-Request-ID
/// value, new for each response, is the one part rewritten (in place: ids of another length do not match).
/// Responses with handler fields are never kept. One per connection; loop thread only.
class HeadCache {
  public:
    /// Appends the head of `r` (framing kContentLength, r.body_bytes().size() bytes) and, when the framing written has
    /// a length, `content` behind it: the bytes write_response_head would append.
    http::h1::WrittenHead write(const Response& r, const EncodeContext& ctx, std::string_view content,
                                OutputQueue& out);
    /// Heads replayed so far (not planned again).
    std::uint64_t replayed() const { return replayed_; }

  private:
    bool matches(const Response& r, std::uint64_t length, const EncodeContext& ctx) const;
    void keep(const Response& r, std::uint64_t length, const EncodeContext& ctx);

    // The inputs of the kept head (besides the fixed framing and the absent handler fields).
    int status_ = 0;
    std::uint64_t length_ = 0;
    bool keep_alive_ = false;
    http::h1::Version version_ = http::h1::Version::kHttp11;
    std::size_t id_size_ = 0;
    std::string content_type_;
    const char* constant_type_ = nullptr;  // content_type_'s static storage when it was a ContentType::constant()
    std::string date_;
    std::string server_;
    // The kept head; empty when none is kept.
    std::string head_;
    std::size_t id_at_ = 0;  // where the X-Request-ID value starts in head_ (id_size_ > 0)
    http::h1::ResponseFraming framing_ = http::h1::ResponseFraming::kNone;  // as written
    bool keep_alive_written_ = false;                                       // as written
    std::uint64_t replayed_ = 0;
};

namespace detail {
/// The Content-Type and handler fields are valid field values, and no handler field is a framing field.
bool fields_valid(const Response& response);
}  // namespace detail

/// True when the encoder accepts the response: status 100..999 and valid, non-framing header fields. Inline:
/// a response with a constant Content-Type and no handler fields (the common one) needs no call.
inline bool response_valid(const Response& response) {
    if (response.status < 100 || response.status > 999) return false;
    return (response.headers.empty() && response.content_type.is_constant()) || detail::fields_valid(response);
}

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
