// Encoder factory, level ranges and the generic one-shot path.
#include "http/compression/encoder.h"

#include "http/compression/codecs.h"

namespace slipstream::http::compression {

LevelRange level_range(Encoding encoding) {
    switch (encoding) {
        case Encoding::kGzip:
        case Encoding::kDeflate:
            return {1, 9, 5};
        case Encoding::kBrotli:
            return {0, 11, 4};
        case Encoding::kZstd:
            return {1, 19, 3};
        case Encoding::kIdentity:
            break;
    }
    return {0, 0, 0};
}

base::Result<std::unique_ptr<Encoder>> Encoder::create(Encoding encoding, int level) {
    if (encoding == Encoding::kIdentity) return base::Status::invalid_argument("identity needs no encoder");
    LevelRange range = level_range(encoding);
    if (level < range.min || level > range.max) {
        return base::Status::invalid_argument(std::string(encoding_token(encoding)) + " level " +
                                              std::to_string(level) + " is outside " + std::to_string(range.min) +
                                              ".." + std::to_string(range.max));
    }
    switch (encoding) {
        case Encoding::kGzip:
            return detail::make_zlib_encoder(true, level);
        case Encoding::kDeflate:
            return detail::make_zlib_encoder(false, level);
        case Encoding::kBrotli:
            return detail::make_brotli_encoder(level);
        case Encoding::kZstd:
            return detail::make_zstd_encoder(level);
        case Encoding::kIdentity:
            break;
    }
    return base::Status::internal("unknown encoding");
}

base::Status Encoder::compress(std::string_view input, std::string& out) {
    SLIPSTREAM_RETURN_IF_ERROR(reset());
    SLIPSTREAM_RETURN_IF_ERROR(write(input, out));
    return finish(out);
}

base::Status Encoder::write_chunk(std::string_view input, std::string& out) {
    SLIPSTREAM_RETURN_IF_ERROR(write(input, out));
    return flush(out);
}

base::Result<std::string> compress(Encoding encoding, std::string_view input, int level) {
    SLIPSTREAM_ASSIGN_OR_RETURN(std::unique_ptr<Encoder> encoder, Encoder::create(encoding, level));
    std::string out;
    SLIPSTREAM_RETURN_IF_ERROR(encoder->compress(input, out));
    return out;
}

}  // namespace slipstream::http::compression
