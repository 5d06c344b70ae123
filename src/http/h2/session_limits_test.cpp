// ServerSession's resource limits against raw frames: streams whose handlers outlive a client reset, responses
// stalled on the peer's flow-control windows, and WINDOW_UPDATE floods.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "http/h2/session.h"
#include "http/h2/session_test_harness.h"

namespace slipstream::http::h2 {
namespace {

using namespace test;  // NOLINT: the raw-frame vocabulary of these tests

constexpr long kCancel = 8;

std::string rst(std::uint32_t id, std::uint32_t code = kCancel) {
    return frame(kRst, 0, id, u32(code));
}

std::uint64_t floods(const Harness& h, FloodKind kind) {
    return h.session->stats().floods[static_cast<std::size_t>(kind)];
}

// ---- streams held by their owner after a client reset (rapid reset, CVE-2023-44487) ----

TEST(SessionLimits, HeldStreamsCountTowardTheConcurrencyLimit) {
    SessionConfig config;
    config.max_concurrent_streams = 2;
    Harness h(config);
    h.recorder.answer = false;
    settle(h);
    ASSERT_TRUE(h.feed(get(1) + get(3) + rst(1) + rst(3)).is_ok());
    EXPECT_EQ(h.recorder.resets, (std::vector<StreamId>{1, 3}));
    EXPECT_EQ(h.session->active_streams(), 0u);
    h.session->set_held_streams(2);  // their handlers run on
    h.output();

    // A new stream would be the third handler at once: refused, never delivered.
    ASSERT_TRUE(h.feed(get(5)).is_ok());
    EXPECT_EQ(rst_code(h.output(), 5), kRefusedStream);
    EXPECT_EQ(h.recorder.requests.size(), 2u);

    // One handler finished: one stream fits again.
    h.session->set_held_streams(1);
    ASSERT_TRUE(h.feed(get(7)).is_ok());
    ASSERT_EQ(h.recorder.requests.size(), 3u);
    EXPECT_EQ(h.recorder.requests.back().id, 7);
    ASSERT_TRUE(h.feed(get(9)).is_ok());
    EXPECT_EQ(rst_code(h.output(), 9), kRefusedStream);
    EXPECT_EQ(h.recorder.requests.size(), 3u);
}

TEST(SessionLimits, RefusalsPastTheLimitEndTheConnection) {
    SessionConfig config;
    config.max_concurrent_streams = 2;
    Harness h(config);
    h.recorder.answer = false;
    settle(h);
    h.session->set_held_streams(2);
    ASSERT_TRUE(h.feed(get(1) + get(3)).is_ok());  // two refusals: a client may retry
    std::vector<Frame> out = h.output();
    EXPECT_EQ(rst_code(out, 1), kRefusedStream);
    EXPECT_EQ(rst_code(out, 3), kRefusedStream);
    // All held handlers finished: the count starts again.
    h.session->set_held_streams(0);
    h.session->set_held_streams(2);
    ASSERT_TRUE(h.feed(get(5) + get(7)).is_ok());
    EXPECT_EQ(floods(h, FloodKind::kRapidReset), 0u);
    // More refusals than the limit while the handlers still run: GOAWAY ENHANCE_YOUR_CALM.
    EXPECT_TRUE(h.feed(get(9)).is_resource_exhausted());
    EXPECT_EQ(goaway_code(h.output()), kEnhanceYourCalm);
    EXPECT_EQ(floods(h, FloodKind::kRapidReset), 1u);
    EXPECT_TRUE(h.recorder.requests.empty());
}

// ---- responses stalled on the peer's flow-control windows ----

TEST(SessionLimits, AStreamStalledOnItsWindowIsResetAtTheSecondCheck) {
    Harness h;
    h.recorder.answer = false;
    // The client's initial stream window is 1 byte.
    ASSERT_TRUE(h.feed(client_start() + frame(kSettings, 0, 0, setting(4, 1)) + get(1) + get(3)).is_ok());
    ASSERT_TRUE(h.session->respond(1, 200, {}, "abc").is_ok());
    EXPECT_EQ(of_type(h.output(), kData).size(), 1u);  // "a"; "bc" waits for the window
    EXPECT_EQ(h.session->reset_stalled(), 0u);
    // Progress (one more byte) between two checks: not stalled.
    ASSERT_TRUE(h.feed(window_update(1, 1)).is_ok());
    EXPECT_EQ(of_type(h.output(), kData).size(), 1u);  // "b"
    EXPECT_EQ(h.session->reset_stalled(), 0u);
    // Stream 3's body waits for send() (the socket), not for a window: never counted as stalled.
    ASSERT_TRUE(h.session->respond(3, 200, {}, "x").is_ok());
    EXPECT_EQ(h.session->reset_stalled(), 1u);
    std::vector<Frame> out = h.output();
    EXPECT_EQ(rst_code(out, 1), kCancel);
    EXPECT_EQ(rst_code(out, 3), -1);
    EXPECT_TRUE(has_frame(out, kData, 3));
    EXPECT_EQ(h.recorder.resets, std::vector<StreamId>{1});
    EXPECT_EQ(h.session->queued_bytes(1), 0u);  // closed: its buffer is gone
    EXPECT_EQ(h.session->active_streams(), 0u);
    EXPECT_EQ(h.session->reset_stalled(), 0u);
}

TEST(SessionLimits, StreamsStalledOnTheConnectionWindowAreReset) {
    Harness h;
    h.recorder.answer = false;
    // Large stream windows, the connection's at its initial 65535 bytes and never reopened.
    ASSERT_TRUE(h.feed(client_start() + frame(kSettings, 0, 0, setting(4, 1 << 20)) + get(1) + get(3)).is_ok());
    ASSERT_TRUE(h.session->respond(1, 200, {}, std::string(70000, 'a')).is_ok());
    std::size_t framed = 0;
    for (const Frame& f : of_type(h.output(), kData))
        framed += f.payload.size();
    EXPECT_EQ(framed, 65535u);
    ASSERT_TRUE(h.session->respond(3, 200, {}, std::string(10, 'b')).is_ok());
    EXPECT_TRUE(of_type(h.output(), kData).empty());
    EXPECT_EQ(h.session->reset_stalled(), 0u);
    EXPECT_EQ(h.session->reset_stalled(), 2u);
    std::vector<Frame> out = h.output();
    EXPECT_EQ(rst_code(out, 1), kCancel);
    EXPECT_EQ(rst_code(out, 3), kCancel);
    EXPECT_EQ(h.session->active_streams(), 0u);
}

// ---- WINDOW_UPDATE floods ----

TEST(SessionLimits, AWindowUpdateFloodIsCounted) {
    SessionConfig config;
    config.control_burst = 10;
    {
        Harness h(config);  // increments of 1 on the connection
        std::string in = client_start();
        for (int i = 0; i < 20; ++i)
            in += window_update(0, 1);
        EXPECT_TRUE(h.feed(in).is_resource_exhausted());
        EXPECT_EQ(goaway_code(h.output()), kEnhanceYourCalm);
        EXPECT_EQ(floods(h, FloodKind::kControlFrames), 1u);
    }
    {
        Harness h(config);  // updates on a stream that is closed (ignored, but not free)
        ASSERT_TRUE(h.feed(client_start() + get(1)).is_ok());
        h.output();
        std::string in;
        for (int i = 0; i < 20; ++i)
            in += window_update(1, 1);
        EXPECT_TRUE(h.feed(in).is_resource_exhausted());
        EXPECT_EQ(goaway_code(h.output()), kEnhanceYourCalm);
        EXPECT_EQ(floods(h, FloodKind::kControlFrames), 1u);
    }
}

TEST(SessionLimits, WindowUpdatesThatAnswerDataAreFree) {
    SessionConfig config;
    config.control_burst = 3;  // the client's two SETTINGS frames take two
    Harness h(config);
    h.recorder.answer = false;
    // Each stream's window opened once up front, the connection's too, then every DATA frame acknowledged on
    // its stream and on the connection: none of it costs a token.
    std::string in = client_start() + frame(kSettings, 0, 0, setting(4, 16384)) + window_update(0, 1 << 20);
    for (std::uint32_t id : {1u, 3u, 5u})
        in += get(id) + window_update(id, 1000);
    ASSERT_TRUE(h.feed(in).is_ok());
    for (StreamId id : {1, 3, 5})
        ASSERT_TRUE(h.session->respond(id, 200, {}, std::string(100000, 'x')).is_ok());
    std::size_t received = 0;
    for (int round = 0; round < 100 && received < 300000; ++round) {
        std::vector<Frame> data = of_type(h.output(), kData);
        std::vector<std::uint32_t> ended;  // a client does not open the window of a stream that ended
        for (const Frame& f : data)
            if (f.flags & kEndStream) ended.push_back(f.stream);
        std::string acks;
        for (const Frame& f : data) {
            received += f.payload.size();
            auto n = static_cast<std::uint32_t>(f.payload.size());
            if (std::find(ended.begin(), ended.end(), f.stream) == ended.end()) acks += window_update(f.stream, n);
            acks += window_update(0, n);
        }
        ASSERT_TRUE(h.feed(acks).is_ok()) << "round " << round;
    }
    EXPECT_EQ(received, 300000u);
    EXPECT_EQ(floods(h, FloodKind::kControlFrames), 0u);
    // The spare token is still there; past it, an update that answers nothing is a flood.
    ASSERT_TRUE(h.feed(window_update(1, 1)).is_ok());  // stream 1 closed: a token
    EXPECT_TRUE(h.feed(window_update(3, 1)).is_resource_exhausted());
}

}  // namespace
}  // namespace slipstream::http::h2
