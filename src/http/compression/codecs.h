// Module-private factories of the library-backed encoders and decoders (zlib, brotli, zstd).
#pragma once

#include <memory>

#include "base/result.h"
#include "http/compression/decoder.h"
#include "http/compression/encoder.h"

namespace slipstream::http::compression::detail {

/// gzip (RFC 1952) when `gzip`, else zlib-wrapped deflate (RFC 1950, what HTTP calls "deflate").
base::Result<std::unique_ptr<Encoder>> make_zlib_encoder(bool gzip, int level);
/// gzip (several members allowed) or deflate (zlib-wrapped or raw, told apart by the first bytes).
base::Result<std::unique_ptr<Decoder>> make_zlib_decoder(bool gzip, DecodeLimits limits);

base::Result<std::unique_ptr<Encoder>> make_brotli_encoder(int level);
base::Result<std::unique_ptr<Decoder>> make_brotli_decoder(DecodeLimits limits);

base::Result<std::unique_ptr<Encoder>> make_zstd_encoder(int level);
/// Frames needing a window over 8 MiB are refused (RFC 9659 §3), so a frame header cannot demand memory.
base::Result<std::unique_ptr<Decoder>> make_zstd_decoder(DecodeLimits limits);

}  // namespace slipstream::http::compression::detail
