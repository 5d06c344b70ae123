// CompressionPolicy: which responses may be compressed, parsed once from ServerOptions.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "http/compression/encoding.h"
#include "slipstream/response.h"
#include "slipstream/server_options.h"

namespace slipstream::server {

/// The response-compression settings in a form cheap to test per response. Read-only after
/// construction, so one policy may be shared by threads.
class CompressionPolicy {
  public:
    /// Control plane: throws std::invalid_argument naming the option for an unknown coding, a bad media
    /// type pattern or a level out of range.
    explicit CompressionPolicy(const ServerOptions& options);

    /// Offered codings, best first (empty: compression is off).
    const std::vector<http::compression::Encoding>& encodings() const { return encodings_; }
    int level(http::compression::Encoding encoding) const;
    std::size_t min_size() const { return min_size_; }

    /// True when `response` may be compressed at all, its size aside: compression on, status with a body
    /// (not 1xx, 204, 206, 304), no Content-Encoding yet, no `Cache-Control: no-transform`, and a media
    /// type on the allow list and not already compressed (event streams only with compress_sse).
    bool eligible(const Response& response) const;
    /// True when the media type (parameters ignored) is compressible under this policy.
    bool type_allowed(std::string_view content_type) const;

  private:
    struct Pattern {
        std::string type;     // "text", "application"
        std::string subtype;  // "json", "*", or "" with suffix set
        std::string suffix;   // "+json" for "application/*+json"
    };

    std::vector<http::compression::Encoding> encodings_;
    std::vector<Pattern> types_;
    int levels_[http::compression::kEncodingCount] = {};
    std::size_t min_size_ = 0;
    bool compress_sse_ = false;
};

/// The response's media type: `content_type`, else its Content-Type header; empty when none.
std::string_view response_content_type(const Response& response);
/// The value of the response's first header named `name` (case-insensitive), or nullptr.
const std::string* find_response_header(const Response& response, std::string_view name);

}  // namespace slipstream::server
