// ServerSession's flow control against raw frames: request bodies (WINDOW_UPDATE as bytes are consumed, our
// SETTINGS taking effect) and responses (the peer's windows and frame size, round robin, failing sources).
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

// ---- flow control of request bodies ----

// A client that follows the flow-control rules: every window starts at 65535; our SETTINGS change the
// streams' (then it acknowledges them); our WINDOW_UPDATEs reopen them. It uploads `streams` bodies at once.
struct UploadingClient {
    std::int64_t conn = 65535;
    std::int64_t initial = 65535;
    std::map<std::uint32_t, std::int64_t> window;  // per stream
    std::map<std::uint32_t, std::size_t> left;     // body bytes still to send
    std::string next_frames;

    void take(const std::vector<Frame>& frames) {
        for (const Frame& f : frames) {
            if (f.type == kSettings && !(f.flags & kAck)) {
                for (std::size_t i = 0; i + 6 <= f.payload.size(); i += 6) {
                    if (f.payload[i + 1] != 4) continue;
                    std::int64_t v = be32(f.payload, i + 2);
                    for (auto& [id, w] : window)
                        w += v - initial;
                    initial = v;
                }
                next_frames += frame(kSettings, kAck, 0, "");
            } else if (f.type == kWindowUpdate) {
                (f.stream == 0 ? conn : window[f.stream]) += be32(f.payload, 0);
            }
        }
    }
    // DATA as the windows allow, round robin, 16 KiB at most per frame.
    void send_data() {
        for (bool progress = true; progress;) {
            progress = false;
            for (auto& [id, n] : left) {
                std::int64_t room = std::min<std::int64_t>({conn, window[id], 16384, static_cast<std::int64_t>(n)});
                if (n == 0 || room <= 0) continue;
                n -= static_cast<std::size_t>(room);
                conn -= room;
                window[id] -= room;
                next_frames += frame(kData, n == 0 ? kEndStream : 0, id, std::string(room, 'u'));
                progress = true;
            }
        }
    }
};

TEST(SessionFrames, ConcurrentUploadsGetWindowUpdates) {
    for (std::uint32_t initial : {16384u, 65535u, 1u << 20}) {
        SessionConfig config;
        config.initial_window_size = initial;
        config.connection_window_size = 65535;
        Harness h(config);
        h.recorder.answer = false;
        UploadingClient c;
        c.next_frames = client_start();
        for (std::uint32_t id = 1; id <= 7; id += 2) {
            c.next_frames += frame(kHeaders, kEndHeaders, id, post_block());
            c.window[id] = c.initial;
            c.left[id] = 200000;
        }
        for (int round = 0; round < 1000 && h.recorder.requests.size() < 4; ++round) {
            c.send_data();
            std::string in;
            in.swap(c.next_frames);
            ASSERT_TRUE(h.feed(in).is_ok()) << initial;
            c.take(h.output());
            if (in.empty() && c.next_frames.empty()) break;  // stalled
        }
        ASSERT_EQ(h.recorder.requests.size(), 4u) << "initial window " << initial;
        for (const Received& r : h.recorder.requests)
            EXPECT_EQ(r.body.size(), 200000u);
    }
}

// ---- flow control of responses ----

TEST(SessionFrames, DataFollowsThePeersWindows) {
    Harness h;
    h.recorder.answer = false;
    // The client's initial window is 1 byte: the body goes a byte at a time, as WINDOW_UPDATEs come.
    ASSERT_TRUE(
        h.feed(std::string(kPreface) + frame(kSettings, 0, 0, setting(4, 100) + setting(4, 1)) + get(1)).is_ok());
    ASSERT_TRUE(h.session->respond(1, 200, {}, "abc").is_ok());
    std::vector<Frame> data = of_type(h.output(), kData);
    ASSERT_EQ(data.size(), 1u);
    EXPECT_EQ(data[0].payload, "a");
    EXPECT_FALSE(h.session->want_write());
    ASSERT_TRUE(h.feed(window_update(1, 1)).is_ok());
    data = of_type(h.output(), kData);
    ASSERT_EQ(data.size(), 1u);
    EXPECT_EQ(data[0].payload, "b");
    // A larger SETTINGS_INITIAL_WINDOW_SIZE opens every stream's window by the difference.
    ASSERT_TRUE(h.feed(frame(kSettings, 0, 0, setting(4, 10))).is_ok());
    data = of_type(h.output(), kData);
    ASSERT_EQ(data.size(), 1u);
    EXPECT_EQ(data[0].payload, "c");
    EXPECT_EQ(data[0].flags, kEndStream);
    // A smaller initial window closes a stream's window: nothing to write until a WINDOW_UPDATE.
    ASSERT_TRUE(h.feed(get(3)).is_ok());
    ASSERT_TRUE(h.session->respond(3, 200, {}, "xyz").is_ok());
    ASSERT_TRUE(h.feed(frame(kSettings, 0, 0, setting(4, 0))).is_ok());
    EXPECT_TRUE(h.session->want_write());  // the HEADERS and the SETTINGS ACK
    EXPECT_TRUE(of_type(h.output(), kData).empty());
    EXPECT_FALSE(h.session->want_write());
    ASSERT_TRUE(h.feed(window_update(3, 2)).is_ok());
    EXPECT_TRUE(h.session->want_write());
    data = of_type(h.output(), kData);
    ASSERT_EQ(data.size(), 1u);
    EXPECT_EQ(data[0].payload, "xy");
}

TEST(SessionFrames, DataFramesAreAtMost16KiBAndRoundRobin) {
    Harness h;
    h.recorder.answer = false;
    ASSERT_TRUE(h.feed(std::string(kPreface) + frame(kSettings, 0, 0, setting(5, 1 << 20)) + get(1) + get(3)).is_ok());
    ASSERT_TRUE(h.session->respond(1, 200, {}, std::string(40000, '1')).is_ok());
    ASSERT_TRUE(h.session->respond(3, 200, {}, std::string(20000, '3')).is_ok());
    std::vector<Frame> data = of_type(h.output(), kData);
    std::vector<std::pair<std::uint32_t, std::size_t>> got;
    for (const Frame& f : data)
        got.emplace_back(f.stream, f.payload.size());
    // 16384 at a time (whatever the peer's SETTINGS_MAX_FRAME_SIZE), the streams taking turns.
    using Got = std::vector<std::pair<std::uint32_t, std::size_t>>;
    EXPECT_EQ(got, (Got{{1, 16384}, {3, 16384}, {1, 16384}, {3, 3616}, {1, 7232}}));
}

TEST(SessionFrames, AFailingBodySourceResetsItsStream) {
    struct Failing final : BodySource {
        base::Result<std::size_t> read(std::span<char>) override { return base::Status::io_error("gone"); }
    };
    Harness h;
    h.recorder.answer = false;
    settle(h);
    ASSERT_TRUE(h.feed(get(1)).is_ok());
    ASSERT_TRUE(h.session->respond(1, 200, {}, std::make_unique<Failing>(), 10).is_ok());
    std::vector<Frame> out = h.output();
    EXPECT_TRUE(has_frame(out, kHeaders, 1));
    EXPECT_FALSE(has_frame(out, kData, 1));
    EXPECT_EQ(rst_code(out, 1), 2);  // INTERNAL_ERROR
    EXPECT_EQ(h.recorder.resets, std::vector<StreamId>{1});
    EXPECT_EQ(h.session->active_streams(), 0u);
}

TEST(SessionFrames, AnAnswerBeforeTheWholeRequestEndsWithNoError) {
    Harness h;
    settle(h);
    ASSERT_TRUE(h.feed(frame(kHeaders, kEndHeaders, 1, post_block())).is_ok());
    ASSERT_EQ(h.recorder.requests.size(), 0u);
    // Not delivered yet; an owner reset is the only way out: answered with RST_STREAM and no callback.
    h.session->reset(1, ErrorCode::kCancel);
    EXPECT_EQ(rst_code(h.output(), 1), 8);
    EXPECT_TRUE(h.recorder.resets.empty());
    EXPECT_FALSE(h.session->receiving());
}

TEST(SessionFrames, AnOwnerResetIsReportedWhenItGoesOut) {
    Harness h;
    h.recorder.answer = false;
    settle(h);
    ASSERT_TRUE(h.feed(get(1)).is_ok());
    ASSERT_TRUE(h.session->start_stream(1, 200, {}).is_ok());
    h.session->reset(1, ErrorCode::kInternalError);
    EXPECT_TRUE(h.recorder.resets.empty());  // not from inside reset()
    EXPECT_TRUE(h.session->write(1, "x").is_not_found());
    EXPECT_EQ(rst_code(h.output(), 1), 2);
    EXPECT_EQ(h.recorder.resets, std::vector<StreamId>{1});
}

}  // namespace
}  // namespace slipstream::http::h2
