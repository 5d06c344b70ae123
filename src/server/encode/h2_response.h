// H2Response: a Response's status line and fields as HTTP/2 header fields (the h1 encoder's HTTP/2 twin).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "http/h2/session.h"
#include "slipstream/response.h"

namespace slipstream::server {

/// Per-response facts besides the Response (the HTTP/2 counterpart of EncodeContext).
struct H2Context {
    std::string_view date;        // IMF-fixdate
    std::string_view server;      // Server header value; empty: none
    std::string_view request_id;  // echoed as x-request-id when non-empty
    bool head_only = false;       // HEAD: content-length but no body
};

/// The header fields of one response, ready for ServerSession::respond/start_stream. Views point into the
/// Response and the context, which must outlive it, and into `length_`.
class H2Response {
  public:
    /// Builds the fields. Returns false when the encoder refuses the response (as encode_response does:
    /// bad status, CR/LF or framing fields); the caller then answers 500. `with_length` adds content-length:
    /// `length` when given (a file body's), else the size of `response.body`.
    bool build(const Response& response, const H2Context& ctx, bool with_length,
               std::optional<std::uint64_t> length = std::nullopt);
    const std::vector<http::h2::HeaderField>& fields() const { return fields_; }
    /// Approximate bytes of the head on the wire (for metrics): names and values before compression.
    std::size_t head_bytes() const { return head_bytes_; }

  private:
    std::vector<http::h2::HeaderField> fields_;
    char length_[24];
    std::size_t head_bytes_ = 0;
};

/// Statuses whose responses have no body (1xx, 204, 304).
inline bool h2_bodiless_status(int status) {
    return status < 200 || status == 204 || status == 304;
}

}  // namespace slipstream::server
