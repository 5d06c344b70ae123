// Strict base64url decoding (RFC 4648 §5, no padding) for the segments of a compact JWS.
#pragma once

#include <cstddef>
#include <string_view>

namespace slipstream::policy::auth::detail {

/// Bytes that decoding `encoded_size` characters yields (the caller sizes its buffer with this).
constexpr std::size_t base64url_decoded_size(std::size_t encoded_size) {
    return encoded_size / 4 * 3 + (encoded_size % 4 == 0 ? 0 : encoded_size % 4 - 1);
}

/// Decodes `in` into `out` (base64url_decoded_size(in.size()) bytes) and returns true, or returns false
/// for anything but the canonical unpadded encoding: a byte outside [A-Za-z0-9_-] (so '=', '+', '/' and
/// whitespace too), a length of 4n+1, or non-zero unused bits in the last character (which would let
/// several texts stand for one signature). The empty string decodes to zero bytes.
bool decode_base64url(std::string_view in, unsigned char* out);

}  // namespace slipstream::policy::auth::detail
