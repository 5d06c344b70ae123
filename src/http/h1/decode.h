// Percent-decoding of the request path and parsing of the query string into (key, value) pairs.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

namespace slipstream::http::h1 {

enum class DecodeStatus : std::uint8_t {
    kOk,
    kBadPercent,  // '%' not followed by two hex digits: answer 400
    kNul,         // decodes to a NUL byte: answer 400
    kNoSpace,     // the caller's buffer is smaller than the input (a caller bug, not a client error)
    kTooMany,     // more query parameters than the output span holds: answer 400 (or 414)
};

struct PathDecodeResult {
    DecodeStatus status = DecodeStatus::kOk;
    /// The decoded path: `raw` itself when it holds no '%', else a view into the caller's buffer.
    std::string_view path;
    /// True when "%2F" (or "%2f") was decoded. The path keeps it as '/', so a route segment can never contain
    /// an encoded slash; a router that must tell "/a%2Fb" from "/a/b" checks this flag and matches on `raw`.
    bool encoded_slash = false;
};

namespace detail {
/// decode_path for a `raw` that holds a '%'.
PathDecodeResult decode_escaped_path(std::string_view raw, std::span<char> out);
}  // namespace detail

/// Percent-decodes a raw path (RequestHead::path). '+' stays '+' (it means space only in queries).
/// `out` needs at least raw.size() bytes; it is not touched when `raw` has no '%'. No UTF-8 check is made:
/// the bytes are returned as decoded. Inline: most paths hold no '%', and then `raw` itself is the answer (the
/// call cost as much as the search).
inline PathDecodeResult decode_path(std::string_view raw, std::span<char> out) {
    if (raw.find('%') == std::string_view::npos) return {DecodeStatus::kOk, raw, false};
    return detail::decode_escaped_path(raw, out);
}

struct QueryParam {
    std::string_view key;
    std::string_view value;
};

struct QueryParseResult {
    DecodeStatus status = DecodeStatus::kOk;
    std::size_t count = 0;  // params written to the output span
};

/// Splits a raw query (RequestHead::query) on '&' into params in arrival order, each on its first '=' (a key
/// without '=' gets an empty value; empty pieces such as "a=1&&b=2" are skipped). In keys and values '+' becomes
/// a space and %XX is decoded; a decoded NUL or malformed '%' is an error.
/// Keys and values are views into `query` when they needed no decoding, else into `scratch`, which needs at least
/// query.size() bytes. Allocation-free; repeated keys are all kept.
QueryParseResult parse_query(std::string_view query, std::span<char> scratch, std::span<QueryParam> out);

}  // namespace slipstream::http::h1
