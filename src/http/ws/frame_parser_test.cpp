// FrameParser tests: header decoding, payload slicing across splits, and every per-frame protocol error.
#include "http/ws/frame_parser.h"

#include <gtest/gtest.h>

#include "http/ws/test_frames.h"

namespace slipstream::http::ws {
namespace {

using testing::client_frame;
using testing::hex;

// Runs the parser over `input` cut into `chunk`-byte pieces; returns the unmasked payload of every frame
// joined with '|' per frame end, or "error <code>: <reason>".
std::string run(std::string_view input, std::size_t chunk, FrameParserOptions options = {}) {
    FrameParser p(options);
    std::string out, payload;
    for (std::size_t pos = 0; pos < input.size(); pos += chunk) {
        std::string_view piece = input.substr(pos, chunk);
        while (true) {
            FrameParser::Step s = p.next(piece);
            piece.remove_prefix(s.consumed);
            if (s.event == FrameParser::Event::kNeedMore) break;
            if (s.event == FrameParser::Event::kError) {
                return "error " + std::to_string(s.close_code) + ": " + std::string(s.reason);
            }
            if (s.event == FrameParser::Event::kPayload) {
                std::string plain(s.payload.size(), '\0');
                if (p.header().masked) {
                    apply_mask(plain.data(), s.payload.data(), s.payload.size(), p.header().mask, s.offset);
                } else {
                    plain.assign(s.payload);
                }
                payload += plain;
            }
            if (s.frame_done) {
                out += std::to_string(p.header().opcode) + ":" + payload + "|";
                payload.clear();
            }
        }
    }
    return out;
}

TEST(FrameParser, ValidFramesAnySplit) {
    struct Case {
        const char* name;
        std::string input;
        std::string expected;
    };
    const std::string big(70000, 'b');
    const Case cases[] = {
        {"text", client_frame(Opcode::kText, "Hello"), "1:Hello|"},
        {"empty binary", client_frame(Opcode::kBinary, ""), "2:|"},
        {"16-bit length", client_frame(Opcode::kBinary, std::string(300, 'x')), "2:" + std::string(300, 'x') + "|"},
        {"64-bit length", client_frame(Opcode::kBinary, big), "2:" + big + "|"},
        {"fragments", client_frame(Opcode::kText, "He", false) + client_frame(Opcode::kContinuation, "llo"),
         "1:He|0:llo|"},
        {"ping 125", client_frame(Opcode::kPing, std::string(125, 'p')), "9:" + std::string(125, 'p') + "|"},
        {"close", client_frame(Opcode::kClose, hex("03e8")), "8:" + hex("03e8") + "|"},
    };
    for (const Case& c : cases) {
        for (std::size_t chunk : {c.input.size(), std::size_t{1}, std::size_t{3}, std::size_t{7}}) {
            FrameParserOptions o;
            o.max_payload = 1 << 20;
            EXPECT_EQ(run(c.input, chunk, o), c.expected) << c.name << " chunk " << chunk;
        }
    }
}

TEST(FrameParser, ProtocolErrors) {
    struct Case {
        const char* name;
        std::string input;
        FrameParserOptions options;
        std::string expected;
    };
    FrameParserOptions server;  // expects masked frames, no RSV1
    FrameParserOptions client{false, false, 1 << 20};
    FrameParserOptions small{true, false, 10};
    const Case cases[] = {
        {"unmasked from client", hex("81 05 48 65 6c 6c 6f"), server, "error 1002: unmasked frame from the client"},
        {"masked from server", client_frame(Opcode::kText, "Hi"), client, "error 1002: masked frame from the server"},
        {"rsv1 without deflate", client_frame(Opcode::kText, "x", true, true), server, "error 1002: reserved bit set"},
        {"rsv2", hex("a1 80 00 00 00 00"), server, "error 1002: reserved bit set"},
        {"rsv3", hex("91 80 00 00 00 00"), server, "error 1002: reserved bit set"},
        {"opcode 3", hex("83 80 00 00 00 00"), server, "error 1002: reserved opcode"},
        {"opcode 0xB", hex("8b 80 00 00 00 00"), server, "error 1002: reserved opcode"},
        {"fragmented ping", hex("09 80 00 00 00 00"), server, "error 1002: fragmented control frame"},
        {"ping 126", hex("89 fe 00 7e"), server, "error 1002: control frame longer than 125 bytes"},
        {"non-minimal 16", hex("82 fe 00 05 00 00 00 00"), server, "error 1002: length not in its shortest form"},
        {"non-minimal 64", hex("82 ff 00 00 00 00 00 00 ff ff 00 00 00 00"), server,
         "error 1002: length not in its shortest form"},
        {"64-bit top bit", hex("82 ff 80 00 00 00 00 00 00 00 00 00 00 00"), server,
         "error 1002: 64-bit length with the top bit set"},
        {"frame over max", client_frame(Opcode::kBinary, std::string(11, 'x')), small, "error 1009: frame too large"},
    };
    for (const Case& c : cases) {
        EXPECT_EQ(run(c.input, c.input.size(), c.options), c.expected) << c.name;
        EXPECT_EQ(run(c.input, 1, c.options), c.expected) << c.name << " (byte by byte)";
    }
}

TEST(FrameParser, Rsv1AllowedWhenNegotiated) {
    FrameParserOptions o{true, true, 1 << 20};
    EXPECT_EQ(run(client_frame(Opcode::kText, "x", true, true), 100, o), "1:x|");
}

TEST(FrameParser, StaysFailed) {
    FrameParser p;
    EXPECT_EQ(p.next(hex("81 05")).event, FrameParser::Event::kError);
    EXPECT_TRUE(p.failed());
    EXPECT_EQ(p.next(client_frame(Opcode::kText, "x")).event, FrameParser::Event::kError);
}

TEST(FrameParser, MaskAtEveryOffset) {
    const std::array<std::uint8_t, 4> mask = {1, 2, 3, 4};
    std::string plain = "0123456789abcdefghijklmnop";
    std::string masked(plain.size(), '\0');
    apply_mask(masked.data(), plain.data(), plain.size(), mask, 0);
    for (std::size_t start = 0; start < plain.size(); ++start) {
        std::string piece(plain.size() - start, '\0');
        apply_mask(piece.data(), masked.data() + start, piece.size(), mask, start);
        EXPECT_EQ(piece, plain.substr(start)) << start;
    }
}

}  // namespace
}  // namespace slipstream::http::ws
