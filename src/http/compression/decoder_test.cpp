// Decoder limits and errors: bombs stop at the cap, malformed and truncated input give precise messages.
#include <gtest/gtest.h>
#define ZLIB_CONST
#include <zlib.h>
#include <zstd.h>

#include <string>

#include "http/compression/decoder.h"
#include "http/compression/encoder.h"

namespace slipstream::http::compression {
namespace {

constexpr Encoding kCodings[] = {Encoding::kGzip, Encoding::kDeflate, Encoding::kBrotli, Encoding::kZstd};

std::string packed(Encoding e, std::string_view input) {
    return compress(e, input, level_range(e).fallback).value();
}

std::string raw_deflate(std::string_view input) {
    z_stream zs{};
    EXPECT_EQ(deflateInit2(&zs, 6, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY), Z_OK);
    std::string out(deflateBound(&zs, input.size()), '\0');
    zs.next_in = reinterpret_cast<const Bytef*>(input.data());
    zs.avail_in = static_cast<uInt>(input.size());
    zs.next_out = reinterpret_cast<Bytef*>(out.data());
    zs.avail_out = static_cast<uInt>(out.size());
    EXPECT_EQ(deflate(&zs, Z_FINISH), Z_STREAM_END);
    out.resize(zs.total_out);
    deflateEnd(&zs);
    return out;
}

TEST(DecoderLimits, SizeCapStopsEveryCoding) {
    const std::string zeros(10'000'000, '\0');  // ~10 KB gzip, ~1 KB zstd: a bomb
    for (Encoding e : kCodings) {
        SCOPED_TRACE(encoding_token(e));
        std::string bomb = packed(e, zeros);
        auto decoder = Decoder::create(e, {.max_output = 100'000, .max_ratio = 0}).value();
        std::string out;
        base::Status s = decoder->write(bomb, out);
        EXPECT_TRUE(s.is_out_of_range());
        EXPECT_EQ(s.message(), "the decompressed body exceeds the limit of 100000 bytes");
        EXPECT_FALSE(decoder->exceeded_ratio());
        EXPECT_LE(out.size(), 100'001u);  // stopped at the cap, not after decoding everything
        EXPECT_TRUE(decoder->write("more", out).is_invalid_argument());  // unusable after an error
    }
}

TEST(DecoderLimits, RatioCapStopsBombsBelowTheSizeCap) {
    const std::string zeros(5'000'000, '\0');
    for (Encoding e : kCodings) {
        SCOPED_TRACE(encoding_token(e));
        base::Result<std::string> r =
            decode(e, packed(e, zeros), {.max_output = 100'000'000, .max_ratio = 100, .ratio_grace = 64 * 1024});
        ASSERT_FALSE(r.is_ok());
        EXPECT_TRUE(r.status().is_out_of_range());
        EXPECT_EQ(r.status().message(), "the body expands more than 100 times when decompressed");
    }
}

TEST(DecoderLimits, RatioGraceAllowsSmallRepetitiveBodies) {
    const std::string zeros(60'000, '\0');  // ratio far above 100, but under the grace
    for (Encoding e : kCodings) {
        SCOPED_TRACE(encoding_token(e));
        base::Result<std::string> r = decode(e, packed(e, zeros), {.max_output = 1'000'000, .max_ratio = 100});
        ASSERT_TRUE(r.is_ok()) << r.status().to_string();
        EXPECT_EQ(*r, zeros);
    }
}

TEST(DecoderLimits, ExactlyAtTheSizeCapIsAllowed) {
    const std::string text(4096, 'x');
    for (Encoding e : kCodings) {
        SCOPED_TRACE(encoding_token(e));
        EXPECT_TRUE(decode(e, packed(e, text), {.max_output = 4096, .max_ratio = 0}).is_ok());
        EXPECT_TRUE(decode(e, packed(e, text), {.max_output = 4095, .max_ratio = 0}).status().is_out_of_range());
    }
}

struct ErrorCase {
    const char* name;
    Encoding encoding;
    std::string input;
    std::string message;
};

TEST(DecoderErrors, MalformedTruncatedTrailing) {
    std::string gz = packed(Encoding::kGzip, "hello world hello world");
    std::string df = packed(Encoding::kDeflate, "hello world hello world");
    std::string br = packed(Encoding::kBrotli, "hello world hello world");
    std::string zs = packed(Encoding::kZstd, "hello world hello world");
    const ErrorCase cases[] = {
        {"gzip not gzip", Encoding::kGzip, "hello", "invalid gzip data: incorrect header check"},
        {"gzip truncated", Encoding::kGzip, gz.substr(0, gz.size() - 4), "invalid gzip data: truncated stream"},
        {"gzip empty", Encoding::kGzip, "", "invalid gzip data: truncated stream"},
        {"gzip trailing garbage", Encoding::kGzip, gz + "garbage", "invalid gzip data: incorrect header check"},
        {"gzip bad crc", Encoding::kGzip, gz.substr(0, gz.size() - 8) + std::string(8, '\x01'),
         "invalid gzip data: incorrect data check"},
        {"deflate trailing", Encoding::kDeflate, df + "x", "invalid deflate data: data after the end of the stream"},
        {"deflate truncated", Encoding::kDeflate, df.substr(0, df.size() - 2),
         "invalid deflate data: truncated stream"},
        {"br truncated", Encoding::kBrotli, br.substr(0, br.size() - 1), "invalid br data: truncated stream"},
        {"br trailing", Encoding::kBrotli, br + "x", "invalid br data: data after the end of the stream"},
        {"br garbage", Encoding::kBrotli, std::string(16, '\xff'), "invalid br data: corrupt stream (PADDING_2)"},
        {"zstd garbage", Encoding::kZstd, "not zstd at all", "invalid zstd data: Unknown frame descriptor"},
        {"zstd truncated", Encoding::kZstd, zs.substr(0, zs.size() - 3), "invalid zstd data: truncated stream"},
    };
    for (const ErrorCase& c : cases) {
        SCOPED_TRACE(c.name);
        base::Result<std::string> r = decode(c.encoding, c.input, {});
        ASSERT_FALSE(r.is_ok());
        EXPECT_TRUE(r.status().is_invalid_argument());
        EXPECT_EQ(r.status().message(), c.message);
    }
}

TEST(DecoderFormats, GzipMembersAndZstdFramesConcatenate) {
    EXPECT_EQ(decode(Encoding::kGzip, packed(Encoding::kGzip, "one,") + packed(Encoding::kGzip, "two"), {}).value(),
              "one,two");
    EXPECT_EQ(decode(Encoding::kZstd, packed(Encoding::kZstd, "one,") + packed(Encoding::kZstd, "two"), {}).value(),
              "one,two");
}

TEST(DecoderFormats, DeflateAcceptsZlibAndRawStreams) {
    const std::string text = "raw deflate is what many clients send as deflate; zlib-wrapped is the standard";
    EXPECT_EQ(decode(Encoding::kDeflate, raw_deflate(text), {}).value(), text);
    EXPECT_EQ(decode(Encoding::kDeflate, packed(Encoding::kDeflate, text), {}).value(), text);
}

TEST(DecoderFormats, ZstdWindowsOver8MiBAreRefused) {
    const std::string big(9 * 1024 * 1024, 'a');
    ZSTD_CCtx* cctx = ZSTD_createCCtx();
    ZSTD_CCtx_setParameter(cctx, ZSTD_c_windowLog, 24);
    ZSTD_CCtx_setParameter(cctx, ZSTD_c_contentSizeFlag, 0);  // no single-segment shortcut
    std::string out(ZSTD_compressBound(big.size()), '\0');
    std::size_t n = ZSTD_compress2(cctx, out.data(), out.size(), big.data(), big.size());
    ZSTD_freeCCtx(cctx);
    ASSERT_FALSE(ZSTD_isError(n));
    out.resize(n);
    base::Result<std::string> r = decode(Encoding::kZstd, out, {.max_output = 64 << 20, .max_ratio = 0});
    ASSERT_FALSE(r.is_ok());
    EXPECT_EQ(r.status().message(), "invalid zstd data: Frame requires too much memory for decoding");
}

}  // namespace
}  // namespace slipstream::http::compression
