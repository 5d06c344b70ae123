// RequestHead: the parsed request line and header section, as views into the request bytes, with derived framing.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

#include "http/h1/header.h"

namespace slipstream::http::h1 {

enum class Version : std::uint8_t { kHttp10, kHttp11 };

/// The common methods, recognised once by the parser so later stages compare an enum. Others are kOther.
enum class Method : std::uint8_t { kOther, kGet, kHead, kPost, kPut, kDelete, kPatch, kOptions, kConnect, kTrace };

/// RFC 9112 §3.2 request-target forms.
enum class TargetForm : std::uint8_t {
    kOrigin,     // "/path?query"
    kAbsolute,   // "http://host/path?query": path, query and host are taken from it
    kAuthority,  // "host:port", CONNECT only
    kAsterisk,   // "*", OPTIONS only
};

/// How the request content is delimited (RFC 9112 §6.3).
enum class BodyKind : std::uint8_t {
    kNone,           // no content follows the head
    kContentLength,  // exactly `content_length` bytes follow (which may be 0)
    kChunked,        // a chunked body follows: feed it to ChunkedDecoder
};

/// A parsed request head. Every view points into the bytes given to parse_request: they stay valid
/// only while those bytes are neither freed nor moved (a base::Buffer moves bytes on prepare()).
struct RequestHead {
    std::string_view method;          // token, case-sensitive
    std::string_view target;          // raw request-target as received
    std::string_view path;            // raw (still percent-encoded) path, before '?'; "/" for "http://host"; "*"; empty
                                      // for authority-form
    std::string_view query;           // raw text after the first '?', without it; empty when none
    std::string_view host;            // authority of an absolute-form or authority-form target, else the Host field
    std::span<const Header> headers;  // in arrival order, inside the caller's array

    Method method_id = Method::kOther;
    TargetForm target_form = TargetForm::kOrigin;
    Version version = Version::kHttp11;
    BodyKind body_kind = BodyKind::kNone;
    std::uint64_t content_length = 0;  // kContentLength only
    bool keep_alive = false;           // HTTP/1.1: unless "Connection: close"; HTTP/1.0: only with keep-alive
    bool expect_continue = false;      // "Expect: 100-continue" on HTTP/1.1: send 100 before reading content
    bool upgrade = false;  // HTTP/1.1 with an Upgrade field and "upgrade" in Connection; see the Upgrade value

    bool has_body() const { return body_kind == BodyKind::kChunked || content_length > 0; }
};

}  // namespace slipstream::http::h1
