// ServerSession against raw frames: the RFC 9113 rules the engine enforces (connection and stream errors,
// SETTINGS, flow control both ways, CONTINUATION, PING, GOAWAY) and the frames it answers with.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "http/h2/session.h"
#include "http/h2/session_test_harness.h"

namespace slipstream::http::h2 {
namespace {

using namespace test;  // NOLINT: the raw-frame vocabulary of these tests

// ---- connection errors: GOAWAY with the code, receive() fails, done() once it is out ----

struct ConnectionErrorCase {
    const char* name;
    std::string input;  // after the client preface and SETTINGS
    long code;
};

TEST(SessionFrames, ConnectionErrorsEndWithGoaway) {
    const std::string open_post = frame(kHeaders, kEndHeaders, 1, post_block());
    const std::string half_block = frame(kHeaders, 0, 1, get_block("/"));
    const ConnectionErrorCase cases[] = {
        {"DATA on stream 0", frame(kData, 0, 0, "x"), kProtocolError},
        {"DATA on an idle stream", frame(kData, 0, 1, "x"), kProtocolError},
        {"DATA padding too long",
         open_post + frame(kData, kPadded, 1,
                           std::string("\x05"
                                       "abcd",
                                       5)),
         kProtocolError},
        {"HEADERS on stream 0", frame(kHeaders, kEndHeaders, 0, get_block("/")), kProtocolError},
        {"HEADERS on an even stream", frame(kHeaders, kEndHeaders, 2, get_block("/")), kProtocolError},
        {"HEADERS padding too long", frame(kHeaders, kEndHeaders | kPadded, 1, "\x40" + get_block("/")),
         kProtocolError},
        {"a frame over 16384 bytes", open_post + frame(kData, 0, 1, std::string(16385, 'x')), kFrameSizeError},
        {"PRIORITY on stream 0", frame(kPriority, 0, 0, u32(1) + "\x10"), kProtocolError},
        {"RST_STREAM of 3 bytes", open_post + frame(kRst, 0, 1, std::string(3, '\0')), kFrameSizeError},
        {"RST_STREAM on stream 0", frame(kRst, 0, 0, u32(8)), kProtocolError},
        {"RST_STREAM on an idle stream", frame(kRst, 0, 1, u32(8)), kProtocolError},
        {"SETTINGS on a stream", frame(kSettings, 0, 1, ""), kProtocolError},
        {"SETTINGS ACK with a payload", frame(kSettings, kAck, 0, setting(1, 0)), kFrameSizeError},
        {"SETTINGS of 5 bytes", frame(kSettings, 0, 0, std::string("\0\x01\0\0\0", 5)), kFrameSizeError},
        {"ENABLE_PUSH 2", frame(kSettings, 0, 0, setting(2, 2)), kProtocolError},
        {"INITIAL_WINDOW_SIZE 2^31", frame(kSettings, 0, 0, setting(4, 0x80000000u)), kFlowControlError},
        {"MAX_FRAME_SIZE 16383", frame(kSettings, 0, 0, setting(5, 16383)), kProtocolError},
        {"MAX_FRAME_SIZE 2^24", frame(kSettings, 0, 0, setting(5, 1u << 24)), kProtocolError},
        {"ENABLE_CONNECT_PROTOCOL 2", frame(kSettings, 0, 0, setting(8, 2)), kProtocolError},
        {"PUSH_PROMISE", frame(kPushPromise, kEndHeaders, 1, u32(2) + get_block("/")), kProtocolError},
        {"PING of 7 bytes", frame(kPing, 0, 0, "1234567"), kFrameSizeError},
        {"PING on a stream", frame(kPing, 0, 1, "12345678"), kProtocolError},
        {"GOAWAY on a stream", frame(kGoaway, 0, 1, u32(0) + u32(0)), kProtocolError},
        {"WINDOW_UPDATE of 3 bytes", frame(kWindowUpdate, 0, 0, std::string("\0\0\x01", 3)), kFrameSizeError},
        {"WINDOW_UPDATE of 0 on the connection", window_update(0, 0), kProtocolError},
        {"connection window past 2^31-1", window_update(0, 0x7fffffff), kFlowControlError},
        {"WINDOW_UPDATE on an idle stream", window_update(1, 1), kProtocolError},
        {"CONTINUATION without HEADERS", frame(kContinuation, kEndHeaders, 1, get_block("/")), kProtocolError},
        {"CONTINUATION after END_HEADERS", get(1) + frame(kContinuation, kEndHeaders, 1, ""), kProtocolError},
        {"PING inside a header block", half_block + frame(kPing, 0, 0, "12345678"), kProtocolError},
        {"unknown frame inside a header block", half_block + frame(0x20, 0, 0, "x"), kProtocolError},
        {"CONTINUATION of another stream", half_block + frame(kContinuation, kEndHeaders, 3, ""), kProtocolError},
        {"HPACK index 0", frame(kHeaders, kEndHeaders, 1, "\x80"), kCompressionError},
        {"HPACK index past the tables", frame(kHeaders, kEndHeaders, 1, "\xff\x7f"), kCompressionError},
        {"HPACK size update above 4096", frame(kHeaders, kEndHeaders, 1, "\x3f\xe2\x1f" + get_block("/")),
         kCompressionError},
        {"a skipped stream id", get(5) + get(3), kProtocolError},
    };
    for (const ConnectionErrorCase& c : cases) {
        Harness h;
        h.recorder.answer = false;
        base::Status st = h.feed(client_start() + c.input);
        EXPECT_TRUE(st.is_invalid_argument()) << c.name << ": " << st.to_string();
        EXPECT_EQ(goaway_code(h.output()), c.code) << c.name;
        EXPECT_TRUE(h.session->done()) << c.name;
        EXPECT_TRUE(h.feed(get(101)).is_cancelled()) << c.name;  // later input is ignored
        EXPECT_TRUE(h.output().empty()) << c.name;
    }
}

TEST(SessionFrames, TheFirstFrameMustBeSettings) {
    for (const std::string& first : {frame(kPing, 0, 0, "12345678"), frame(kSettings, kAck, 0, ""), get(1)}) {
        Harness h;
        EXPECT_TRUE(h.feed(std::string(kPreface) + first).is_invalid_argument());
        EXPECT_EQ(goaway_code(h.output()), kProtocolError);
    }
}

TEST(SessionFrames, GoawayCarriesTheLastClientStream) {
    Harness h;
    ASSERT_TRUE(h.feed(client_start() + get(1) + get(7)).is_ok());
    (void)h.output();
    EXPECT_FALSE(h.feed(frame(kData, 0, 0, "x")).is_ok());
    for (const Frame& f : of_type(h.output(), kGoaway))
        EXPECT_EQ(be32(f.payload, 0), 7u);
}

TEST(SessionFrames, ConnectionWindowOverrunIsAFlowControlError) {
    SessionConfig config;
    config.connection_window_size = 65535;
    Harness h(config);
    h.recorder.answer = false;
    settle(h);
    // A tunnel's bytes stay counted until consumed: 4 full frames are one byte past the connection window.
    std::string in = frame(kHeaders, kEndHeaders, 1, connect_block("websocket"));
    for (int i = 0; i < 4; ++i)
        in += frame(kData, 0, 1, std::string(16384, 'x'));
    EXPECT_TRUE(h.feed(in).is_invalid_argument());
    EXPECT_EQ(goaway_code(h.output()), kFlowControlError);
}

// ---- stream errors: RST_STREAM with the code, the connection goes on ----

struct StreamErrorCase {
    const char* name;
    std::string input;  // after settle()
    std::uint32_t stream;
    long code;
};

TEST(SessionFrames, StreamErrorsResetOnlyTheStream) {
    const std::string open_post = frame(kHeaders, kEndHeaders, 1, post_block());
    const StreamErrorCase cases[] = {
        {"PRIORITY of 4 bytes", open_post + frame(kPriority, 0, 1, u32(0)), 1, kFrameSizeError},
        {"PRIORITY on itself", open_post + frame(kPriority, 0, 1, u32(1) + "\x10"), 1, kProtocolError},
        {"PRIORITY on itself, idle stream", frame(kPriority, 0, 9, u32(9) + "\x10"), 9, kProtocolError},
        {"HEADERS depending on itself",
         frame(kHeaders, kEndHeaders | kEndStream | kPriorityFlag, 1, u32(1) + "\x10" + get_block("/")), 1,
         kProtocolError},
        {"WINDOW_UPDATE of 0 on a stream", open_post + window_update(1, 0), 1, kProtocolError},
        {"stream window past 2^31-1", open_post + window_update(1, 0x7fffffff), 1, kFlowControlError},
        {"DATA on half-closed (remote)", get(1) + frame(kData, 0, 1, "x"), 1, kStreamClosed},
        {"HEADERS on half-closed (remote)", get(1) + get(1), 1, kStreamClosed},
        {"DATA past the stream window", open_post + frame(kData, 0, 1, std::string(100, 'x')), 1, kFlowControlError},
        {"HEADERS after a client reset", open_post + frame(kRst, 0, 1, u32(8)) + get(1), 1, kStreamClosed},
        {"DATA after a client reset", open_post + frame(kRst, 0, 1, u32(8)) + frame(kData, 0, 1, "x"), 1,
         kStreamClosed},
        {"trailers without END_STREAM", open_post + frame(kHeaders, kEndHeaders, 1, literal("x-t", "1")), 1,
         kProtocolError},
    };
    for (const StreamErrorCase& c : cases) {
        SessionConfig config;
        config.initial_window_size = 64;
        Harness h(config);
        h.recorder.answer = false;
        settle(h);
        ASSERT_TRUE(h.feed(c.input).is_ok()) << c.name;
        EXPECT_EQ(rst_code(h.output(), c.stream), c.code) << c.name;
        h.recorder.answer = true;
        ASSERT_TRUE(h.feed(get(11, "/next")).is_ok()) << c.name;
        EXPECT_TRUE(has_frame(h.output(), kHeaders, 11)) << c.name;
        EXPECT_FALSE(h.session->done()) << c.name;
    }
}

TEST(SessionFrames, FramesOnAClosedStreamAreStreamClosed) {
    Harness h;
    settle(h);
    ASSERT_TRUE(h.feed(get(1)).is_ok());
    ASSERT_TRUE(has_frame(h.output(), kData, 1));  // answered: the stream closed
    ASSERT_TRUE(h.feed(frame(kData, 0, 1, "x") + window_update(1, 5) + frame(kRst, 0, 1, u32(0))).is_ok());
    std::vector<Frame> out = h.output();
    EXPECT_EQ(rst_code(out, 1), kStreamClosed);  // WINDOW_UPDATE and RST_STREAM are ignored
    EXPECT_EQ(of_type(out, kRst).size(), 1u);
    // A HEADERS on a stream closed by END_STREAM both ways is a connection error (RFC 9113 §5.1 "closed").
    ASSERT_TRUE(h.feed(get(3)).is_ok());
    ASSERT_TRUE(has_frame(h.output(), kData, 3));
    EXPECT_TRUE(h.feed(get(3)).is_invalid_argument());
    EXPECT_EQ(goaway_code(h.output()), kStreamClosed);
}

TEST(SessionFrames, StreamsPastTheLimitAreRefusedBeforeTheAck) {
    SessionConfig config;
    config.max_concurrent_streams = 1;
    Harness h(config);
    h.recorder.answer = false;
    ASSERT_TRUE(h.feed(client_start() + get(1) + get(3)).is_ok());
    EXPECT_EQ(rst_code(h.output(), 3), kRefusedStream);
    EXPECT_EQ(h.recorder.requests.size(), 1u);
}

TEST(SessionFrames, FramesOnAStreamWeResetAreIgnored) {
    Harness h;
    settle(h);
    // Malformed (uppercase name): reset, and the DATA the client sent before it saw the reset is ignored.
    std::string block = post_block() + literal("X-Up", "1");
    ASSERT_TRUE(h.feed(frame(kHeaders, kEndHeaders, 1, block)).is_ok());
    ASSERT_TRUE(h.feed(frame(kData, 0, 1, "abc") + frame(kData, kEndStream, 1, "d") + frame(0x20, 0, 1, "?")).is_ok());
    std::vector<Frame> out = h.output();
    EXPECT_EQ(of_type(out, kRst).size(), 1u);
    EXPECT_EQ(rst_code(out, 1), kProtocolError);
    ASSERT_TRUE(h.feed(frame(kData, 0, 1, "late")).is_ok());  // after the RST_STREAM went out too
    EXPECT_TRUE(of_type(h.output(), kRst).empty());
    // A late HEADERS on it is ignored too, but its block is still decoded: the entry it indexes (62) is
    // there for the next request.
    ASSERT_TRUE(h.feed(frame(kHeaders, kEndHeaders | kEndStream, 1, literal("x-idx", "v", true))).is_ok());
    ASSERT_TRUE(h.feed(frame(kHeaders, kEndHeaders | kEndStream, 3, get_block("/next") + "\xbe")).is_ok());
    EXPECT_TRUE(of_type(h.output(), kRst).empty());
    ASSERT_EQ(h.recorder.requests.size(), 1u);
    EXPECT_EQ(h.recorder.requests[0].headers, (std::vector<std::pair<std::string, std::string>>{{"x-idx", "v"}}));
}

TEST(SessionFrames, ThePeersHeaderTableSizeReachesTheEncoder) {
    Harness h;
    h.recorder.answer = false;
    ASSERT_TRUE(h.feed(std::string(kPreface) + frame(kSettings, 0, 0, setting(1, 0)) + get(1) + get(3)).is_ok());
    ASSERT_TRUE(h.session->respond(1, 200, {}, "").is_ok());
    ASSERT_TRUE(h.session->respond(3, 200, {}, "").is_ok());
    std::vector<Frame> heads = of_type(h.output(), kHeaders);
    ASSERT_EQ(heads.size(), 2u);
    EXPECT_EQ(heads[0].payload, "\x20\x88");  // a table size update to 0, then :status 200 (static index 8)
    EXPECT_EQ(heads[1].payload, "\x88");
}

// ---- SETTINGS, PING, GOAWAY ----

TEST(SessionFrames, SettingsAreAcknowledgedAndPingsAnswered) {
    Harness h;
    std::string in = client_start() + frame(kSettings, 0, 0, setting(0x99, 7) + setting(3, 10));
    in += frame(kPing, 0, 0, "abcdefgh") + frame(kPing, kAck, 0, "zzzzzzzz");
    ASSERT_TRUE(h.feed(in).is_ok());
    std::vector<Frame> out = h.output();
    ASSERT_GE(out.size(), 4u);
    EXPECT_EQ(out[0].type, kSettings);  // the server preface: SETTINGS, then the connection window
    EXPECT_EQ(out[0].flags, 0);
    EXPECT_EQ(out[1].type, kWindowUpdate);
    EXPECT_EQ(be32(out[1].payload, 0), 16u * 1024 * 1024 - 65535);
    std::vector<Frame> settings = of_type(out, kSettings);
    ASSERT_EQ(settings.size(), 3u);  // ours and two ACKs
    EXPECT_EQ(settings[1].flags, kAck);
    EXPECT_EQ(settings[2].flags, kAck);
    std::vector<Frame> pings = of_type(out, kPing);
    ASSERT_EQ(pings.size(), 1u);  // a PING ACK is not answered
    EXPECT_EQ(pings[0].flags, kAck);
    EXPECT_EQ(pings[0].payload, "abcdefgh");
}

TEST(SessionFrames, ClientGoawayEndsTheSessionOnceStreamsFinish) {
    Harness h;
    h.recorder.answer = false;
    settle(h);
    ASSERT_TRUE(h.feed(get(1) + frame(kGoaway, 0, 0, u32(0) + u32(0)) + get(3)).is_ok());
    EXPECT_EQ(h.recorder.requests.size(), 1u);  // no new stream after the client's GOAWAY
    (void)h.output();
    EXPECT_FALSE(h.session->done());
    ASSERT_TRUE(h.session->respond(1, 200, {}, "x").is_ok());
    EXPECT_FALSE(h.session->done());
    (void)h.output();
    EXPECT_TRUE(h.session->done());
}

TEST(SessionFrames, StreamsAboveOurGoawayAreIgnored) {
    Harness h;
    settle(h);
    ASSERT_TRUE(h.feed(get(1)).is_ok());
    h.session->shutdown();
    std::vector<Frame> out = h.output();
    ASSERT_EQ(of_type(out, kGoaway).size(), 1u);
    EXPECT_EQ(be32(of_type(out, kGoaway)[0].payload, 0), 1u);
    EXPECT_EQ(be32(of_type(out, kGoaway)[0].payload, 4), 0u);
    ASSERT_TRUE(h.feed(get(3)).is_ok());
    EXPECT_EQ(h.recorder.requests.size(), 1u);
    EXPECT_TRUE(h.output().empty());
    EXPECT_TRUE(h.session->done());
}

TEST(SessionFrames, TerminateSendsGoawayWithItsCode) {
    Harness h;
    settle(h);
    h.session->terminate(ErrorCode::kEnhanceYourCalm);
    EXPECT_EQ(goaway_code(h.output()), kEnhanceYourCalm);
    EXPECT_TRUE(h.session->done());
    EXPECT_EQ(h.session->error_code(), ErrorCode::kEnhanceYourCalm);
}

// ---- header blocks ----

TEST(SessionFrames, HeaderBlocksMayBeSplitPaddedAndPrioritized) {
    Harness h;
    settle(h);
    std::string block = get_block("/split") + literal("x-a", "1");
    std::string in = frame(kHeaders, kEndStream | kPadded | kPriorityFlag, 1,
                           "\x03" + u32(0) + "\x10" + block.substr(0, 10) + std::string(3, '\0'));
    in += frame(kContinuation, 0, 1, block.substr(10, 20));
    in += frame(kContinuation, kEndHeaders, 1, block.substr(30));
    // A padded body on the next stream.
    in += frame(kHeaders, kEndHeaders, 3, post_block("/padded"));
    in += frame(kData, kEndStream | kPadded, 3,
                "\x02"
                "body" +
                    std::string(2, '\0'));
    ASSERT_TRUE(h.feed(in).is_ok());
    ASSERT_EQ(h.recorder.requests.size(), 2u);
    EXPECT_EQ(h.recorder.requests[0].path, "/split");
    EXPECT_EQ(h.recorder.requests[0].headers, (std::vector<std::pair<std::string, std::string>>{{"x-a", "1"}}));
    EXPECT_EQ(h.recorder.requests[1].body, "body");
}

TEST(SessionFrames, BytesMayArriveOneAtATime) {
    Harness h;
    std::string in = client_start() + get(1, "/slow") + frame(kPing, 0, 0, "12345678");
    for (char c : in)
        ASSERT_TRUE(h.feed(std::string_view(&c, 1)).is_ok());
    ASSERT_EQ(h.recorder.requests.size(), 1u);
    EXPECT_EQ(h.recorder.requests[0].path, "/slow");
    EXPECT_EQ(of_type(h.output(), kPing).size(), 1u);
}

TEST(SessionFrames, LargeResponseHeadsUseContinuation) {
    Harness h;
    h.recorder.answer = false;
    settle(h);
    ASSERT_TRUE(h.feed(get(1)).is_ok());
    const std::string value(60000, 'a');  // 37,500 bytes Huffman-coded
    HeaderField big{"x-big", value};
    ASSERT_TRUE(h.session->respond(1, 200, {&big, 1}, "").is_ok());
    std::vector<Frame> out = h.output();
    ASSERT_EQ(out.size(), 3u);
    EXPECT_EQ(out[0].type, kHeaders);
    EXPECT_EQ(out[0].flags, kEndStream);
    EXPECT_EQ(out[0].payload.size(), 16384u);
    EXPECT_EQ(out[1].type, kContinuation);
    EXPECT_EQ(out[1].flags, 0);
    EXPECT_EQ(out[2].type, kContinuation);
    EXPECT_EQ(out[2].flags, kEndHeaders);
}

// ---- defences ----

TEST(SessionFrames, APeerThatNeverReadsIsAFlood) {
    SessionConfig config;
    config.control_burst = 5000;
    Harness h(config);
    std::string in = client_start();
    for (int i = 0; i < 1200; ++i)
        in += frame(kPing, 0, 0, "12345678");
    EXPECT_TRUE(h.feed(in).is_resource_exhausted());
    EXPECT_EQ(goaway_code(h.output()), kEnhanceYourCalm);
    EXPECT_EQ(h.session->stats().floods[static_cast<std::size_t>(FloodKind::kOther)], 1u);
}

TEST(SessionFrames, AnEmptyHeadersFloodIsCounted) {
    SessionConfig config;
    config.control_burst = 10;
    Harness h(config);
    std::string in = client_start() + frame(kHeaders, 0, 1, "");
    for (int i = 0; i < 20; ++i)
        in += frame(kContinuation, 0, 1, "");
    EXPECT_TRUE(h.feed(in).is_resource_exhausted());
    EXPECT_EQ(goaway_code(h.output()), kEnhanceYourCalm);
}

}  // namespace
}  // namespace slipstream::http::h2
