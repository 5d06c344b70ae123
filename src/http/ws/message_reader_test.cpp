// MessageReader tests: reassembly, interleaved control frames, UTF-8, close payloads, limits and deflate.
#include "http/ws/message_reader.h"

#include <gtest/gtest.h>

#include "http/ws/inflater.h"
#include "http/ws/test_frames.h"

namespace slipstream::http::ws {
namespace {

using testing::client_frame;
using testing::hex;
using Kind = MessageReader::Kind;

std::string kind_name(Kind k) {
    switch (k) {
        case Kind::kText:
            return "text";
        case Kind::kBinary:
            return "binary";
        case Kind::kPing:
            return "ping";
        case Kind::kPong:
            return "pong";
        case Kind::kClose:
            return "close";
        case Kind::kError:
            return "error";
        case Kind::kNeedMore:
            break;
    }
    return "need-more";
}

// Every event as "kind(data)" or "close(code,reason)" / "error(code,reason)", for input cut in `chunk` pieces.
std::string run(std::string_view input, std::size_t chunk, MessageReaderOptions options = {}) {
    MessageReader r(options);
    std::string out;
    for (std::size_t pos = 0; pos < input.size(); pos += chunk) {
        std::string_view piece = input.substr(pos, chunk);
        for (;;) {
            MessageReader::Event e = r.read(piece);
            piece.remove_prefix(e.consumed);
            if (e.kind == Kind::kNeedMore) break;
            out += kind_name(e.kind) + "(";
            if (e.kind == Kind::kClose || e.kind == Kind::kError) out += std::to_string(e.close_code) + ",";
            out += std::string(e.data) + ")";
            if (e.kind == Kind::kError) return out;
        }
    }
    return out;
}

std::string compressed(std::string_view text) {
    Deflater d(15, true);
    std::string c;
    EXPECT_TRUE(d.compress(text, c).is_ok());
    return c;
}

TEST(MessageReader, Cases) {
    struct Case {
        const char* name;
        std::string input;
        std::string expected;
    };
    using O = Opcode;
    const std::string bad_utf8 = hex("ce ba e1 bd b9 cf 83 ce bc ce b5 ed a0 80 65 64 69 74 65 64");
    const Case cases[] = {
        {"text", client_frame(O::kText, "Hello"), "text(Hello)"},
        {"binary", client_frame(O::kBinary, hex("00 ff")), "binary(" + hex("00 ff") + ")"},
        {"empty text", client_frame(O::kText, ""), "text()"},
        {"two messages", client_frame(O::kText, "a") + client_frame(O::kBinary, "b"), "text(a)binary(b)"},
        {"fragments",
         client_frame(O::kText, "He", false) + client_frame(O::kContinuation, "l", false) +
             client_frame(O::kContinuation, "lo"),
         "text(Hello)"},
        {"empty fragments", client_frame(O::kText, "", false) + client_frame(O::kContinuation, ""), "text()"},
        {"ping between fragments",
         client_frame(O::kText, "He", false) + client_frame(O::kPing, "p") + client_frame(O::kContinuation, "llo"),
         "ping(p)text(Hello)"},
        {"pong", client_frame(O::kPong, "x"), "pong(x)"},
        {"close with code", client_frame(O::kClose, hex("03e8") + "bye"), "close(1000,bye)"},
        {"close empty", client_frame(O::kClose, ""), "close(1005,)"},
        {"close 3000", client_frame(O::kClose, hex("0bb8")), "close(3000,)"},
        {"utf8 split across fragments",
         client_frame(O::kText, hex("e2 82"), false) + client_frame(O::kContinuation, hex("ac")),
         "text(" + hex("e2 82 ac") + ")"},
        // Errors.
        {"invalid utf8 fails fast", client_frame(O::kText, bad_utf8, false),
         "error(1007,text message is not valid UTF-8)"},
        {"truncated utf8 at end", client_frame(O::kText, hex("e2 82")), "error(1007,text message is not valid UTF-8)"},
        {"binary is not checked", client_frame(O::kBinary, hex("ff")), "binary(" + hex("ff") + ")"},
        {"continuation first", client_frame(O::kContinuation, "x"), "error(1002,continuation frame without a message)"},
        {"text inside fragmented", client_frame(O::kText, "a", false) + client_frame(O::kText, "b"),
         "error(1002,new message inside a fragmented one)"},
        {"close one byte", client_frame(O::kClose, "x"), "error(1002,invalid close)"},
        {"close code 1005", client_frame(O::kClose, hex("03ed")), "error(1002,invalid close)"},
        {"close code 999", client_frame(O::kClose, hex("03e7")), "error(1002,invalid close)"},
        {"close code 1016", client_frame(O::kClose, hex("03f8")), "error(1002,invalid close)"},
        {"close code 5000", client_frame(O::kClose, hex("1388")), "error(1002,invalid close)"},
        {"close bad reason", client_frame(O::kClose, hex("03e8 ff")), "error(1007,close reason is not valid UTF-8)"},
        {"rsv1 without deflate", client_frame(O::kText, "x", true, true), "error(1002,reserved bit set)"},
    };
    for (const Case& c : cases) {
        for (std::size_t chunk : {c.input.size(), std::size_t{1}, std::size_t{5}}) {
            EXPECT_EQ(run(c.input, chunk), c.expected) << c.name << " chunk " << chunk;
        }
    }
}

TEST(MessageReader, Limits) {
    MessageReaderOptions o;
    o.max_message_bytes = 10;
    o.max_frame_bytes = 8;
    using O = Opcode;
    EXPECT_EQ(run(client_frame(O::kText, "12345678"), 100, o), "text(12345678)");
    EXPECT_EQ(run(client_frame(O::kText, "123456789"), 100, o), "error(1009,frame too large)");
    EXPECT_EQ(run(client_frame(O::kText, "123456", false) + client_frame(O::kContinuation, "12345"), 100, o),
              "error(1009,message too large)");
    // Refused from the declared length, before its payload arrives.
    std::string two = client_frame(O::kText, "123456", false) + client_frame(O::kContinuation, "12345");
    EXPECT_EQ(run(two.substr(0, 12 + 6), 100, o), "error(1009,message too large)");
}

TEST(MessageReader, Deflate) {
    MessageReaderOptions o;
    o.deflate = true;
    using O = Opcode;
    std::string c = compressed("Hello, Hello, Hello");
    std::string half1 = c.substr(0, c.size() / 2), half2 = c.substr(c.size() / 2);
    struct Case {
        const char* name;
        std::string input;
        std::string expected;
    };
    const Case cases[] = {
        {"rfc example", client_frame(O::kText, hex("f2 48 cd c9 c9 07 00"), true, true), "text(Hello)"},
        {"uncompressed still fine", client_frame(O::kText, "plain"), "text(plain)"},
        {"fragmented compressed", client_frame(O::kText, half1, false, true) + client_frame(O::kContinuation, half2),
         "text(Hello, Hello, Hello)"},
        {"rsv1 on continuation",
         client_frame(O::kText, half1, false, true) + client_frame(O::kContinuation, half2, true, true),
         "error(1002,RSV1 set on a continuation frame)"},
        {"rsv1 on ping", client_frame(O::kPing, "", true, true), "error(1002,RSV1 set on a control frame)"},
        {"corrupt", client_frame(O::kBinary, hex("ff ff ff ff"), true, true), "error(1007,invalid compressed data)"},
        {"inflated invalid utf8", client_frame(O::kText, compressed(hex("ff fe")), true, true),
         "error(1007,text message is not valid UTF-8)"},
    };
    for (const Case& cs : cases) {
        for (std::size_t chunk : {cs.input.size(), std::size_t{1}, std::size_t{4}})
            EXPECT_EQ(run(cs.input, chunk, o), cs.expected) << cs.name << " chunk " << chunk;
    }
}

TEST(MessageReader, DeflateBombCapped) {
    MessageReaderOptions o;
    o.deflate = true;
    o.max_message_bytes = 1 << 16;
    std::string bomb = compressed(std::string(8 << 20, 'a'));
    ASSERT_LT(bomb.size(), 1u << 16);
    EXPECT_EQ(run(client_frame(Opcode::kBinary, bomb, true, true), 1 << 20, o), "error(1009,message too large)");
}

TEST(MessageReader, StaysFailedAndConsumesEverything) {
    MessageReader r({});
    std::string bad = hex("81 05 48 65 6c 6c 6f");
    EXPECT_EQ(r.read(bad).kind, Kind::kError);
    MessageReader::Event e = r.read("more bytes");
    EXPECT_EQ(e.kind, Kind::kError);
    EXPECT_EQ(e.consumed, 10u);
}

}  // namespace
}  // namespace slipstream::http::ws
