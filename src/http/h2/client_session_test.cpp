// ClientSession: against our ServerSession in memory (requests, bodies both ways, flow control, resets), and raw
// server frames for every check (connection errors with their GOAWAY code, stream errors with RST_STREAM).
#include "http/h2/client_session.h"

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "http/h2/session_test_harness.h"

namespace slipstream::http::h2::test {
namespace {

ClientRequest plain(std::string_view method, std::span<const HeaderField> headers = {}) {
    return {.method = method, .scheme = "https", .authority = "x", .path = "/", .headers = headers, .body = {}};
}

struct Response {
    int status = 0;
    std::vector<std::pair<std::string, std::string>> headers;
    std::string body;
    bool ended = false;
    bool failed = false;
    ClientStreamError error;
    std::string reason;
};

struct Client final : ClientSessionHandler {
    explicit Client(ClientSessionConfig config = {}) : session(config, *this) {}
    void on_response_head(std::uint32_t id, int status, std::span<const HeaderField> fields) override {
        responses[id].status = status;
        for (const HeaderField& f : fields)
            responses[id].headers.emplace_back(f.name, f.value);
    }
    void on_response_data(std::uint32_t id, std::string_view data) override {
        responses[id].body.append(data);
        if (auto_consume) session.consume(id, data.size());
    }
    void on_response_end(std::uint32_t id) override { responses[id].ended = true; }
    void on_stream_error(std::uint32_t id, const ClientStreamError& e) override {
        responses[id].failed = true;
        responses[id].error = e;
        responses[id].reason = std::string(e.reason);
    }
    void on_goaway(std::uint32_t last, ErrorCode code) override {
        goaway_last = last;
        goaway = code;
    }
    std::uint32_t submit(std::string_view method, std::string_view path, std::string body = {}) {
        HeaderField h{"X-Test", "yes"};
        auto id = session.submit(
            {.method = method, .scheme = "https", .authority = "x", .path = path, .headers = {&h, 1}, .body = body});
        EXPECT_TRUE(id.is_ok()) << id.status().to_string();
        return id.is_ok() ? *id : 0;
    }
    std::string out() {
        std::string o;
        session.send(o, 1 << 24);
        return o;
    }
    ClientSession session;
    std::map<std::uint32_t, Response> responses;
    bool auto_consume = true;
    std::uint32_t goaway_last = 0;
    ErrorCode goaway = ErrorCode::kNoError;
};

// Moves bytes both ways until neither side has anything to send.
void pump(Client& c, Harness& s) {
    for (int i = 0; i < 100; ++i) {
        std::string a = c.out();
        if (!a.empty()) {
            ASSERT_TRUE(s.feed(a).is_ok());
        }
        std::string b;
        s.session->send(b, 1 << 24);
        if (!b.empty()) {
            ASSERT_TRUE(c.session.receive(b).is_ok());
        }
        if (a.empty() && b.empty()) return;
    }
}

TEST(ClientSession, RequestsAndResponsesThroughOurServerSession) {
    Client c;
    Harness s;
    std::uint32_t a = c.submit("GET", "/a");
    std::uint32_t b = c.submit("POST", "/b", std::string(100'000, 'q'));  // past the server's first 65535 window
    std::uint32_t d = c.submit("GET", "/d");
    EXPECT_EQ(a, 1u);
    EXPECT_EQ(b, 3u);
    EXPECT_EQ(d, 5u);
    pump(c, s);
    ASSERT_EQ(s.recorder.requests.size(), 3u);
    EXPECT_EQ(s.recorder.requests[2].path, "/b");  // delivered once its body is whole
    EXPECT_EQ(s.recorder.requests[2].body, std::string(100'000, 'q'));
    EXPECT_EQ(s.recorder.requests[0].headers[0].first, "x-test");  // lowered on the wire
    for (std::uint32_t id : {a, b, d}) {
        EXPECT_TRUE(c.responses[id].ended);
        EXPECT_EQ(c.responses[id].status, 200);
    }
    EXPECT_EQ(c.responses[b].body, "path=/b");
    EXPECT_EQ(c.responses[a].headers[0], (std::pair<std::string, std::string>{"content-type", "text/plain"}));
    EXPECT_EQ(c.session.open_streams(), 0u);
}

TEST(ClientSession, AStreamNotConsumedHoldsTheServerAtItsWindow) {
    ClientSessionConfig config;
    config.stream_window = 32 * 1024;
    Client c(config);
    c.auto_consume = false;
    Harness s;
    s.recorder.answer = false;
    std::uint32_t id = c.submit("GET", "/big");
    pump(c, s);
    ASSERT_TRUE(s.session->start_stream(1, 200, {}).is_ok());
    ASSERT_TRUE(s.session->write(1, std::string(200'000, 'z')).is_ok());
    ASSERT_TRUE(s.session->end(1).is_ok());
    pump(c, s);
    EXPECT_EQ(c.responses[id].body.size(), 32u * 1024);  // nothing consumed: no WINDOW_UPDATE for the stream
    EXPECT_FALSE(c.responses[id].ended);
    while (!c.responses[id].ended && c.responses[id].body.size() < 200'000) {
        std::size_t had = c.responses[id].body.size();
        c.session.consume(id, 32 * 1024);
        pump(c, s);
        ASSERT_GT(c.responses[id].body.size(), had);
    }
    EXPECT_EQ(c.responses[id].body, std::string(200'000, 'z'));
    EXPECT_TRUE(c.responses[id].ended);
}

TEST(ClientSession, ResetCancelsOneStreamAndItsLateFramesAreDropped) {
    Client c;
    Harness s;
    s.recorder.answer = false;
    std::uint32_t a = c.submit("GET", "/a");
    std::uint32_t b = c.submit("GET", "/b");
    pump(c, s);
    ASSERT_TRUE(s.session->start_stream(1, 200, {}).is_ok());
    ASSERT_TRUE(s.session->write(1, "early").is_ok());
    std::string late;
    s.session->send(late, 1 << 20);
    c.session.reset(a);
    auto frames = parse_frames(c.out());
    EXPECT_EQ(rst_code(frames, a), 8);             // CANCEL
    ASSERT_TRUE(c.session.receive(late).is_ok());  // in flight when we reset: dropped
    EXPECT_EQ(c.responses.count(a), 0u);
    ASSERT_TRUE(s.feed(frame(kRst, 0, a, u32(8))).is_ok());
    EXPECT_EQ(s.recorder.resets, std::vector<StreamId>{1});
    ASSERT_TRUE(s.session->respond(3, 200, {}, "fine").is_ok());
    pump(c, s);
    EXPECT_EQ(c.responses[b].body, "fine");
}

// A client session that has sent its preface and the server's SETTINGS; `ids` streams open.
struct Raw {
    explicit Raw(int ids = 1) {
        for (int i = 0; i < ids; ++i)
            c.submit("GET", "/");
        c.out();
        EXPECT_TRUE(c.session.receive(frame(kSettings, 0, 0, "")).is_ok());
        c.out();
    }
    base::Status feed(std::string_view bytes) { return c.session.receive(bytes); }
    Client c;
};

std::string status_block(std::string_view status, std::string extra = {}) {
    return literal(":status", status) + extra;
}

TEST(ClientSession, ResponseHeadsInterimTrailersAndContentLength) {
    Raw r(3);
    ASSERT_TRUE(r.feed(frame(kHeaders, kEndHeaders, 1, status_block("103"))).is_ok());
    EXPECT_EQ(r.c.responses[1].status, 0);
    ASSERT_TRUE(r.feed(frame(kHeaders, kEndHeaders, 1, status_block("200", literal("content-length", "2")))).is_ok());
    ASSERT_TRUE(r.feed(frame(kData, 0, 1, "ok")).is_ok());
    ASSERT_TRUE(r.feed(frame(kHeaders, kEndHeaders | kEndStream, 1, literal("x-trailer", "t"))).is_ok());
    EXPECT_TRUE(r.c.responses[1].ended);
    EXPECT_EQ(r.c.responses[1].body, "ok");
    // Content-Length 5 but 2 bytes and END_STREAM: malformed.
    ASSERT_TRUE(r.feed(frame(kHeaders, kEndHeaders, 3, status_block("200", literal("content-length", "5")))).is_ok());
    ASSERT_TRUE(r.feed(frame(kData, kEndStream, 3, "ab")).is_ok());
    EXPECT_TRUE(r.c.responses[3].failed);
    EXPECT_EQ(r.c.responses[3].reason, "less DATA than content-length");
    EXPECT_EQ(rst_code(parse_frames(r.c.out()), 3), kProtocolError);
    // HEAD (and 304): a Content-Length without content is fine.
    auto head = r.c.session.submit(
        {.method = "HEAD", .scheme = "https", .authority = "x", .path = "/", .headers = {}, .body = {}});
    ASSERT_TRUE(head.is_ok());
    ASSERT_TRUE(
        r.feed(frame(kHeaders, kEndHeaders | kEndStream, *head, status_block("200", literal("content-length", "42"))))
            .is_ok());
    EXPECT_TRUE(r.c.responses[*head].ended);
    // A padded DATA frame: padding dropped.
    ASSERT_TRUE(r.feed(frame(kHeaders, kEndHeaders, 5, status_block("200"))).is_ok());
    ASSERT_TRUE(r.feed(frame(kData, kPadded | kEndStream, 5, std::string("\x03", 1) + "hi" + "000")).is_ok());
    EXPECT_EQ(r.c.responses[5].body, "hi");
}

struct StreamCase {
    const char* name;
    std::string block;
    const char* reason;
};

TEST(ClientSession, MalformedResponseHeadsAreStreamErrors) {
    const std::vector<StreamCase> cases = {
        {"no status", literal("content-type", "x"), "a response head without :status"},
        {"bad status", literal(":status", "20"), "a :status that is not three digits 100-599"},
        {"request pseudo", status_block("200", literal(":path", "/")),
         "a pseudo-header other than one leading :status"},
        {"late pseudo", literal("a", "b") + literal(":status", "200"),
         "a pseudo-header other than one leading :status"},
        {"uppercase", status_block("200", literal("Content-Type", "x")),
         "a field name with a character HTTP/2 forbids (uppercase, space, control)"},
        {"value LF", status_block("200", literal("x", "a\nb")), "a field value with NUL, CR or LF"},
        {"value space", status_block("200", literal("x", " a")), "a field value with surrounding whitespace"},
        {"connection", status_block("200", literal("connection", "close")), "a connection-specific field"},
        {"bad length", status_block("200", literal("content-length", "1x")), "a bad content-length"},
        {"101", status_block("101"), "a 101 or an interim head that ends the stream"},
    };
    for (const StreamCase& k : cases) {
        Raw r(2);
        ASSERT_TRUE(r.feed(frame(kHeaders, kEndHeaders, 1, k.block)).is_ok()) << k.name;
        EXPECT_TRUE(r.c.responses[1].failed) << k.name;
        EXPECT_EQ(r.c.responses[1].reason, k.reason) << k.name;
        EXPECT_FALSE(r.c.responses[1].error.unprocessed) << k.name;
        EXPECT_EQ(rst_code(parse_frames(r.c.out()), 1), kProtocolError) << k.name;
        // The connection goes on.
        ASSERT_TRUE(r.feed(frame(kHeaders, kEndHeaders | kEndStream, 3, status_block("204"))).is_ok()) << k.name;
        EXPECT_TRUE(r.c.responses[3].ended) << k.name;
    }
}

struct ConnCase {
    const char* name;
    std::string bytes;
    long code;
};

TEST(ClientSession, ServerFramesThatBreakTheProtocolEndTheConnection) {
    const std::string head = frame(kHeaders, kEndHeaders, 1, status_block("200"));
    const std::vector<ConnCase> cases = {
        {"DATA on 0", frame(kData, 0, 0, "x"), kProtocolError},
        {"DATA on idle", frame(kData, 0, 9, "x"), kProtocolError},
        {"DATA on even", frame(kData, 0, 2, "x"), kProtocolError},
        {"HEADERS on idle", frame(kHeaders, kEndHeaders, 11, status_block("200")), kProtocolError},
        {"bad padding", frame(kData, kPadded, 1, std::string("\x09", 1) + "ab"), kProtocolError},
        {"bad HPACK", frame(kHeaders, kEndHeaders, 1, "\xff\xff\xff\xff\xff\xff"), kCompressionError},
        {"push", frame(kPushPromise, kEndHeaders, 1, u32(2) + status_block("200")), kProtocolError},
        {"enable push", frame(kSettings, 0, 0, setting(2, 1)), kProtocolError},
        {"settings size", frame(kSettings, 0, 0, "abcde"), kFrameSizeError},
        {"settings on stream", frame(kSettings, 0, 1, ""), kProtocolError},
        {"ack with payload", frame(kSettings, kAck, 0, setting(1, 1)), kFrameSizeError},
        {"window too large", frame(kSettings, 0, 0, setting(4, 0x80000000u)), kFlowControlError},
        {"frame size", frame(kSettings, 0, 0, setting(5, 100)), kProtocolError},
        {"ping size", frame(kPing, 0, 0, "1234567"), kFrameSizeError},
        {"ping on stream", frame(kPing, 0, 1, "12345678"), kProtocolError},
        {"goaway short", frame(kGoaway, 0, 0, "1234"), kFrameSizeError},
        {"update 0", window_update(0, 0), kProtocolError},
        {"update overflow", window_update(0, 0x7fffffff), kFlowControlError},
        {"rst size", frame(kRst, 0, 1, "12"), kFrameSizeError},
        {"rst on idle", frame(kRst, 0, 7, u32(0)), kProtocolError},
        {"continuation alone", frame(kContinuation, kEndHeaders, 1, ""), kProtocolError},
        {"interleaved", frame(kHeaders, 0, 1, status_block("200")) + frame(kPing, 0, 0, "12345678"), kProtocolError},
        {"too large", frame(kData, 0, 1, std::string(16385, 'a')), kFrameSizeError},
    };
    for (const ConnCase& k : cases) {
        Client c;
        c.submit("GET", "/");
        c.submit("GET", "/");
        c.out();
        ASSERT_TRUE(c.session.receive(frame(kSettings, 0, 0, "")).is_ok());
        c.out();
        base::Status st = c.session.receive(k.bytes);
        EXPECT_FALSE(st.is_ok()) << k.name;
        EXPECT_TRUE(c.session.dead()) << k.name;
        EXPECT_EQ(goaway_code(parse_frames(c.out())), k.code) << k.name << ": " << st.to_string();
        EXPECT_TRUE(c.responses[1].failed && c.responses[3].failed) << k.name;  // every open stream hears it
        EXPECT_FALSE(c.session.submit(plain("GET")).is_ok());
    }
}

TEST(ClientSession, DataPastTheStreamWindowResetsTheStream) {
    ClientSessionConfig config;
    config.stream_window = 16384;
    Client c(config);
    c.auto_consume = false;
    c.submit("GET", "/");
    c.out();
    ASSERT_TRUE(c.session.receive(frame(kSettings, 0, 0, "")).is_ok());
    ASSERT_TRUE(c.session.receive(frame(kHeaders, kEndHeaders, 1, status_block("200"))).is_ok());
    ASSERT_TRUE(c.session.receive(frame(kData, 0, 1, std::string(16384, 'a'))).is_ok());
    ASSERT_TRUE(c.session.receive(frame(kData, 0, 1, "b")).is_ok());
    EXPECT_TRUE(c.responses[1].failed);
    EXPECT_EQ(c.responses[1].error.code, ErrorCode::kFlowControlError);
    EXPECT_EQ(rst_code(parse_frames(c.out()), 1), kFlowControlError);
}

TEST(ClientSession, TheFirstServerFrameMustBeSettings) {
    Client c;
    c.submit("GET", "/");
    c.out();
    EXPECT_FALSE(c.session.receive(frame(kPing, 0, 0, "12345678")).is_ok());
    EXPECT_EQ(goaway_code(parse_frames(c.out())), kProtocolError);
}

TEST(ClientSession, GoawayRefusesTheStreamsAboveItsLastId) {
    Raw r(3);
    ASSERT_TRUE(r.feed(frame(kGoaway, 0, 0, u32(1) + u32(0))).is_ok());
    EXPECT_TRUE(r.c.responses[3].failed && r.c.responses[3].error.unprocessed);
    EXPECT_TRUE(r.c.responses[5].failed && r.c.responses[5].error.unprocessed);
    EXPECT_FALSE(r.c.responses[1].failed);
    EXPECT_EQ(r.c.goaway_last, 1u);
    EXPECT_FALSE(r.c.session.can_submit());
    EXPECT_TRUE(r.c.session.submit(plain("GET")).status().is_unavailable());
    ASSERT_TRUE(r.feed(frame(kHeaders, kEndHeaders | kEndStream, 1, status_block("200"))).is_ok());
    EXPECT_TRUE(r.c.responses[1].ended);
}

TEST(ClientSession, ResetsFromTheServerAndRefusedStreams) {
    Raw r(2);
    ASSERT_TRUE(r.feed(frame(kRst, 0, 1, u32(7))).is_ok());  // REFUSED_STREAM: never processed
    EXPECT_TRUE(r.c.responses[1].error.unprocessed);
    EXPECT_TRUE(r.c.responses[1].error.remote);
    ASSERT_TRUE(r.feed(frame(kRst, 0, 3, u32(2))).is_ok());
    EXPECT_FALSE(r.c.responses[3].error.unprocessed);
    EXPECT_EQ(r.c.responses[3].error.code, ErrorCode::kInternalError);
}

TEST(ClientSession, SettingsPingAndStreamLimits) {
    Client c;
    c.out();
    ASSERT_TRUE(c.session.receive(frame(kSettings, 0, 0, setting(3, 1) + setting(4, 10))).is_ok());
    ASSERT_TRUE(c.session.receive(frame(kPing, 0, 0, "abcdefgh")).is_ok());
    auto frames = parse_frames(c.out());
    ASSERT_EQ(frames.size(), 2u);
    EXPECT_EQ(frames[0].type, kSettings);
    EXPECT_EQ(frames[0].flags, kAck);
    EXPECT_EQ(frames[1].type, kPing);
    EXPECT_EQ(frames[1].payload, "abcdefgh");
    std::uint32_t id = c.submit("POST", "/", std::string(25, 'b'));
    EXPECT_FALSE(c.session.can_submit());  // the server allows one stream at a time
    EXPECT_TRUE(c.session.submit(plain("GET")).status().is_resource_exhausted());
    // The body goes out 10 bytes at a time as the server opens the stream's window.
    auto data = of_type(parse_frames(c.out()), kData);
    ASSERT_EQ(data.size(), 1u);
    EXPECT_EQ(data[0].payload.size(), 10u);
    ASSERT_TRUE(c.session.receive(window_update(id, 100)).is_ok());
    data = of_type(parse_frames(c.out()), kData);
    ASSERT_EQ(data.size(), 1u);
    EXPECT_EQ(data[0].payload.size(), 15u);
    EXPECT_EQ(data[0].flags, kEndStream);
}

TEST(ClientSession, UnansweredControlFramesAreAFlood) {
    ClientSessionConfig config;
    config.max_queued_control_frames = 10;
    Client c(config);
    c.out();
    std::string pings = frame(kSettings, 0, 0, "");
    for (int i = 0; i < 11; ++i)
        pings += frame(kPing, 0, 0, "abcdefgh");
    EXPECT_TRUE(c.session.receive(pings).is_resource_exhausted());
    EXPECT_EQ(c.session.error_code(), ErrorCode::kEnhanceYourCalm);
}

TEST(ClientSession, RefusesFieldsHttp2Forbids) {
    Client c;
    HeaderField bad{"Connection", "close"};
    EXPECT_TRUE(c.session.submit(plain("GET", {&bad, 1})).status().is_invalid_argument());
    EXPECT_TRUE(c.session.submit(plain("CONNECT")).status().is_invalid_argument());
}

}  // namespace
}  // namespace slipstream::http::h2::test
