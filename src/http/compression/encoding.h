// Encoding: the content codings the engine knows (RFC 9110 §8.4.1) and their tokens.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string_view>

#include "base/ows.h"

namespace slipstream::http::compression {

/// A content coding. kIdentity means "no transformation".
enum class Encoding : std::uint8_t { kIdentity = 0, kGzip, kDeflate, kBrotli, kZstd };

inline constexpr std::size_t kEncodingCount = 5;
inline constexpr std::array<Encoding, kEncodingCount> kAllEncodings = {
    Encoding::kIdentity, Encoding::kGzip, Encoding::kDeflate, Encoding::kBrotli, Encoding::kZstd};

/// The token on the wire: "identity", "gzip", "deflate", "br", "zstd".
std::string_view encoding_token(Encoding encoding);

/// Parses a coding token, ASCII case-insensitively ("x-gzip" is gzip, RFC 9110 §8.4.1.3). nullopt when unknown.
std::optional<Encoding> parse_encoding(std::string_view token);

/// ASCII case-insensitive equality (tokens, media types).
bool ascii_iequals(std::string_view a, std::string_view b);

using base::trim_ows;

}  // namespace slipstream::http::compression
