// Encoders and decoders: round trips for every coding, one-shot and chunked with per-chunk flushes.
#include <gtest/gtest.h>

#include <random>
#include <string>

#include "http/compression/decoder.h"
#include "http/compression/encoder.h"

namespace slipstream::http::compression {
namespace {

constexpr Encoding kCodings[] = {Encoding::kGzip, Encoding::kDeflate, Encoding::kBrotli, Encoding::kZstd};

std::string json_like(std::size_t n) {
    std::string s;
    for (std::size_t i = 0; s.size() < n; ++i)
        s += R"({"id":)" + std::to_string(i) + R"(,"name":"item )" + std::to_string(i * 7 % 13) + R"(","ok":true},)";
    s.resize(n);
    return s;
}

std::string random_bytes(std::size_t n, unsigned seed) {
    std::mt19937 rng(seed);
    std::string s(n, '\0');
    for (char& c : s)
        c = static_cast<char>(rng() & 0xff);
    return s;
}

DecodeLimits roomy() {
    return {.max_output = 64 * 1024 * 1024, .max_ratio = 0, .ratio_grace = 0};
}

TEST(Codec, OneShotRoundTrip) {
    const std::string inputs[] = {"", "a", json_like(100), json_like(200'000), random_bytes(70'000, 1)};
    for (Encoding e : kCodings) {
        for (const std::string& input : inputs) {
            SCOPED_TRACE(std::string(encoding_token(e)) + " size " + std::to_string(input.size()));
            base::Result<std::string> packed = compress(e, input, level_range(e).fallback);
            ASSERT_TRUE(packed.is_ok()) << packed.status().to_string();
            if (input.size() > 1000 && input[0] == '{') {
                EXPECT_LT(packed->size(), input.size() / 4);
            }
            base::Result<std::string> back = decode(e, *packed, roomy());
            ASSERT_TRUE(back.is_ok()) << back.status().to_string();
            EXPECT_EQ(*back, input);
        }
    }
}

TEST(Codec, EveryLevelRoundTrips) {
    const std::string input = json_like(5000);
    for (Encoding e : kCodings) {
        LevelRange r = level_range(e);
        for (int level = r.min; level <= r.max; ++level) {
            SCOPED_TRACE(std::string(encoding_token(e)) + " level " + std::to_string(level));
            base::Result<std::string> packed = compress(e, input, level);
            ASSERT_TRUE(packed.is_ok());
            EXPECT_EQ(decode(e, *packed, roomy()).value(), input);
        }
        EXPECT_TRUE(Encoder::create(e, r.max + 1).status().is_invalid_argument());
        EXPECT_TRUE(Encoder::create(e, r.min - 1).status().is_invalid_argument());
    }
    EXPECT_TRUE(Encoder::create(Encoding::kIdentity, 1).status().is_invalid_argument());
    EXPECT_TRUE(Decoder::create(Encoding::kIdentity, {}).status().is_invalid_argument());
}

// Each flushed chunk must decode on arrival to exactly the bytes written so far (what a streamed response
// needs: an SSE event must reach the client without waiting for the next one).
TEST(Codec, FlushedChunksDecodeOnArrival) {
    const std::string chunks[] = {"data: first\n\n", "data: second, a little longer\n\n", "", json_like(3000),
                                  "data: last\n\n"};
    for (Encoding e : kCodings) {
        SCOPED_TRACE(encoding_token(e));
        auto encoder = Encoder::create(e, level_range(e).fallback).value();
        auto decoder = Decoder::create(e, roomy()).value();
        std::string expected, decoded;
        for (const std::string& chunk : chunks) {
            std::string wire;
            ASSERT_TRUE(encoder->write_chunk(chunk, wire).is_ok());
            expected += chunk;
            ASSERT_TRUE(decoder->write(wire, decoded).is_ok());
            EXPECT_EQ(decoded, expected);
        }
        std::string tail;
        ASSERT_TRUE(encoder->finish(tail).is_ok());
        ASSERT_TRUE(decoder->write(tail, decoded).is_ok());
        EXPECT_TRUE(decoder->finish().is_ok());
        EXPECT_EQ(decoded, expected);
        std::string more;
        EXPECT_TRUE(encoder->write("x", more).is_invalid_argument());  // after finish
    }
}

TEST(Codec, EncoderIsReusableAfterReset) {
    for (Encoding e : kCodings) {
        SCOPED_TRACE(encoding_token(e));
        auto encoder = Encoder::create(e, level_range(e).fallback).value();
        for (int round = 0; round < 3; ++round) {
            std::string input = json_like(1000 + round * 500), out;
            ASSERT_TRUE(encoder->compress(input, out).is_ok());
            EXPECT_EQ(decode(e, out, roomy()).value(), input);
        }
        std::string a, b;
        ASSERT_TRUE(encoder->reset().is_ok());
        ASSERT_TRUE(encoder->write("hello ", a).is_ok());
        ASSERT_TRUE(encoder->write("world", a).is_ok());
        ASSERT_TRUE(encoder->finish(a).is_ok());
        EXPECT_EQ(decode(e, a, roomy()).value(), "hello world");
    }
}

TEST(Codec, DecoderTakesInputByteByByte) {
    const std::string input = json_like(20'000);
    for (Encoding e : kCodings) {
        SCOPED_TRACE(encoding_token(e));
        std::string packed = compress(e, input, level_range(e).fallback).value();
        auto decoder = Decoder::create(e, roomy()).value();
        std::string out;
        for (char c : packed)
            ASSERT_TRUE(decoder->write(std::string_view(&c, 1), out).is_ok());
        EXPECT_TRUE(decoder->finish().is_ok());
        EXPECT_EQ(out, input);
        EXPECT_EQ(decoder->total_in(), packed.size());
        EXPECT_EQ(decoder->total_out(), input.size());
    }
}

}  // namespace
}  // namespace slipstream::http::compression
