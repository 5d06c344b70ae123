// FrameReader: the preface, whole frames, frames in pieces, and the size limit.
#include "http/h2/frame_reader.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace slipstream::http::h2::detail {
namespace {

constexpr std::string_view kPreface = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";

std::string frame(std::uint8_t type, std::uint32_t stream, std::string_view payload) {
    std::string f(kFrameHeaderSize, '\0');
    put_frame_header(f.data(), payload.size(), static_cast<FrameType>(type), 0x5, stream | 0x80000000u);
    f.append(payload);
    return f;
}

struct Got {
    std::vector<std::string> frames;  // "type/stream/payload"
    FrameReader::Step last = FrameReader::Step::kNeedMore;
};

Got read_all(FrameReader& r, std::string_view input) {
    Got got;
    FrameHeader h;
    std::string_view payload;
    for (;;) {
        got.last = r.next(input, h, payload);
        if (got.last != FrameReader::Step::kFrame) return got;
        EXPECT_EQ(h.flags, 0x5);
        got.frames.push_back(std::to_string(h.type) + "/" + std::to_string(h.stream) + "/" + std::string(payload));
    }
}

TEST(FrameReader, CutsFramesWholeOrInPieces) {
    const std::string input = std::string(kPreface) + frame(4, 0, "") + frame(0, 1, "hello") + frame(9, 3, "x");
    const std::vector<std::string> want = {"4/0/", "0/1/hello", "9/3/x"};
    for (std::size_t piece : {input.size(), std::size_t{1}, std::size_t{7}, std::size_t{10}}) {
        FrameReader r;
        std::vector<std::string> frames;
        for (std::size_t at = 0; at < input.size(); at += piece) {
            Got got = read_all(r, std::string_view(input).substr(at, piece));
            EXPECT_EQ(got.last, FrameReader::Step::kNeedMore) << piece;
            frames.insert(frames.end(), got.frames.begin(), got.frames.end());
        }
        EXPECT_EQ(frames, want) << "pieces of " << piece;
    }
}

TEST(FrameReader, RefusesABadPrefaceAndOversizedFrames) {
    FrameReader a;
    EXPECT_EQ(read_all(a, "PRI * HTTP/1.1\r\n").last, FrameReader::Step::kBadPreface);
    FrameReader b;
    EXPECT_EQ(read_all(b, "PRI * HTTP/2").last, FrameReader::Step::kNeedMore);
    EXPECT_EQ(read_all(b, ".1").last, FrameReader::Step::kBadPreface);
    FrameReader c;
    std::string big = std::string(kPreface) + frame(0, 1, std::string(16385, 'x'));
    EXPECT_EQ(read_all(c, std::string_view(big).substr(0, 40)).last, FrameReader::Step::kTooLarge);
    FrameReader d;
    Got got = read_all(d, std::string(kPreface) + frame(0, 1, std::string(16384, 'x')));
    EXPECT_EQ(got.frames.size(), 1u);
}

}  // namespace
}  // namespace slipstream::http::h2::detail
