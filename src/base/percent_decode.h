// Percent (%XX) decoding shared by the path, query, form and header-parameter decoders.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

namespace slipstream::base {

/// The value of one hex digit (0-9, a-f, A-F), or -1 for any other byte.
constexpr int hex_digit_value(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

/// What a '+' means: itself (paths, RFC 8187 header parameters) or a space (query strings and urlencoded forms).
enum class PlusMode : std::uint8_t { kLiteral, kSpace };

enum class PercentError : std::uint8_t {
    kNone,
    kBadEscape,  // a '%' not followed by two hex digits
    kNul,        // an escape that decodes to a NUL byte
};

struct StrictDecodeResult {
    PercentError error = PercentError::kNone;
    std::size_t size = 0;        // bytes written to the output (0 on error)
    bool encoded_slash = false;  // "%2F" or "%2f" was decoded
};

/// Strict decoding for request paths and queries: every '%' must start a two-hex-digit escape and no escape may
/// decode to NUL (either is an error, and the output is then unspecified). `out` needs at least in.size() bytes.
StrictDecodeResult percent_decode_strict(std::string_view in, std::span<char> out, PlusMode plus);

/// Lenient decoding as Python's urllib.parse.unquote_to_bytes (and unquote_plus with PlusMode::kSpace): a '%'
/// that does not start a two-hex-digit escape is kept as is, NUL is decoded like any byte. Never fails;
/// appends to `out`.
void append_percent_decoded(std::string_view in, PlusMode plus, std::string& out);

}  // namespace slipstream::base
