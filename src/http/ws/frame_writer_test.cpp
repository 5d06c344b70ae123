// Frame writer tests: RFC 6455 §5.7 examples and every length encoding.
#include "http/ws/frame_writer.h"

#include <gtest/gtest.h>

#include "http/ws/test_frames.h"

namespace slipstream::http::ws {
namespace {

using testing::hex;
using testing::kTestMask;

TEST(FrameWriter, Rfc6455Examples) {
    struct Case {
        const char* name;
        Opcode op;
        std::string payload;
        FrameOptions options;
        std::string expected;
    };
    const Case cases[] = {
        {"unmasked text", Opcode::kText, "Hello", {}, hex("81 05 48 65 6c 6c 6f")},
        {"masked text", Opcode::kText, "Hello", {true, false, kTestMask}, hex("81 85 37 fa 21 3d 7f 9f 4d 51 58")},
        {"first fragment", Opcode::kText, "Hel", {false, false, {}}, hex("01 03 48 65 6c")},
        {"last fragment", Opcode::kContinuation, "lo", {}, hex("80 02 6c 6f")},
        {"ping", Opcode::kPing, "Hello", {}, hex("89 05 48 65 6c 6c 6f")},
        {"compressed", Opcode::kText, "x", {true, true, {}}, hex("c1 01 78")},
        {"empty close", Opcode::kClose, "", {}, hex("88 00")},
    };
    for (const Case& c : cases) {
        std::string out;
        append_frame(out, c.op, c.payload, c.options);
        EXPECT_EQ(out, c.expected) << c.name;
    }
}

TEST(FrameWriter, LengthEncodings) {
    struct Case {
        std::uint64_t len;
        std::string expected_head;
    };
    const Case cases[] = {
        {0, hex("82 00")},
        {125, hex("82 7d")},
        {126, hex("82 7e 00 7e")},
        {65535, hex("82 7e ff ff")},
        {65536, hex("82 7f 00 00 00 00 00 01 00 00")},
        {0x123456789ull, hex("82 7f 00 00 00 01 23 45 67 89")},
    };
    for (const Case& c : cases) {
        char head[kMaxFrameHeader];
        std::size_t n = encode_frame_header(Opcode::kBinary, c.len, {}, head);
        EXPECT_EQ(std::string(head, n), c.expected_head) << c.len;
    }
}

TEST(FrameWriter, CloseFrame) {
    std::string out;
    append_close_frame(out, 1001, "bye");
    EXPECT_EQ(out, hex("88 05 03 e9 62 79 65"));
}

}  // namespace
}  // namespace slipstream::http::ws
