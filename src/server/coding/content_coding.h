// ContentCoding: one I/O thread's response compression and request-body decoding (Accept-/Content-Encoding).
#pragma once

#include <array>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "http/compression/encoder.h"
#include "http/h1/header.h"
#include "server/coding/compression_policy.h"
#include "server/observe/coding_metrics.h"
#include "slipstream/response.h"
#include "slipstream/server_options.h"

namespace slipstream::server {

/// Owned by a Worker; loop thread only (it keeps one reusable encoder per coding, so a compressed
/// response costs no encoder allocation). Protocol-neutral: works on `Response` values and request header
/// views, before the protocol encoder frames them.
class ContentCoding {
  public:
    /// Control plane: throws std::invalid_argument for bad compression options (see CompressionPolicy).
    ContentCoding(const ServerOptions& options, CodingMetrics& metrics);

    /// Complete responses: when eligible and at least min_size, adds `Vary: Accept-Encoding`; when the
    /// client accepts an offered coding, replaces the body with its compressed form, sets Content-Encoding
    /// and weakens a strong ETag. A body that would not shrink is sent as it is. HEAD answers are compressed
    /// like GET's so their Content-Length matches.
    void compress_response(std::span<const http::h1::Header> request_headers, Response& response);

    /// Streamed responses: when the head is eligible and the client accepts a coding, sets the headers on
    /// `head` and returns the stream's encoder (each chunk is then written with write_chunk: a sync flush
    /// per chunk). Returns null for an identity stream.
    std::unique_ptr<http::compression::Encoder> start_stream(std::span<const http::h1::Header> request_headers,
                                                             Response& head);

    /// Request bodies: decodes a body sent with Content-Encoding (gzip, br, zstd, deflate; several are
    /// undone in reverse order) into `storage` and points `body` at it. Returns the response to send
    /// instead when the body cannot be accepted: 415 for an unknown coding or when decoding is off, 413
    /// past the size or ratio cap, 400 for malformed data (problem+json, the detail says exactly why).
    std::optional<Response> decode_request_body(std::span<const http::h1::Header> request_headers,
                                                std::string_view& body, std::string& storage);

    const CompressionPolicy& policy() const { return policy_; }
    CodingMetrics& metrics() { return metrics_; }

  private:
    http::compression::Encoding negotiate(std::span<const http::h1::Header> request_headers) const;
    http::compression::Encoder* encoder_for(http::compression::Encoding encoding);
    void count_compressed(http::compression::Encoding encoding, std::size_t before, std::size_t after);

    CompressionPolicy policy_;
    CodingMetrics& metrics_;
    // Children per coding, looked up once (with() takes a lock).
    std::array<metrics::Counter*, http::compression::kEncodingCount> compressed_{};
    std::array<metrics::Counter*, http::compression::kEncodingCount> saved_{};
    std::array<metrics::Counter*, http::compression::kEncodingCount> decoded_{};
    bool request_decompression_;
    std::size_t max_decoded_;
    std::uint32_t max_ratio_;
    std::array<std::unique_ptr<http::compression::Encoder>, http::compression::kEncodingCount> encoders_;
};

/// Adds "Accept-Encoding" to the response's Vary header (or adds the header) unless it is there or `*`.
void add_vary_accept_encoding(Response& response);

}  // namespace slipstream::server
