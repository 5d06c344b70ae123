// ServerSession: requests in, responses out, limits and flood defences, against raw frames and nghttp2's client.
#include "http/h2/session.h"

#include <gtest/gtest.h>
#include <nghttp2/nghttp2.h>

#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "http/h2/session_test_harness.h"

namespace slipstream::http::h2 {
namespace {

using namespace test;  // NOLINT: the raw-frame vocabulary of these tests

// ---- nghttp2 as the client, for checks of decoded responses ----

struct Client {
    struct Response {
        std::map<std::string, std::string> headers;
        std::map<std::string, bool> never_indexed;  // by field name: sent as a never-indexed literal
        std::string body;
        bool closed = false;
        std::uint32_t close_code = 0;
    };
    Client() {
        nghttp2_session_callbacks* cb;
        nghttp2_session_callbacks_new(&cb);
        nghttp2_session_callbacks_set_on_header_callback(
            cb, [](nghttp2_session*, const nghttp2_frame* f, const uint8_t* n, size_t nl, const uint8_t* v, size_t vl,
                   uint8_t flags, void* u) {
                Response& r = static_cast<Client*>(u)->responses[f->hd.stream_id];
                std::string name(reinterpret_cast<const char*>(n), nl);
                r.headers[name] = std::string(reinterpret_cast<const char*>(v), vl);
                r.never_indexed[name] = (flags & NGHTTP2_NV_FLAG_NO_INDEX) != 0;
                return 0;
            });
        nghttp2_session_callbacks_set_on_data_chunk_recv_callback(
            cb, [](nghttp2_session*, uint8_t, int32_t id, const uint8_t* d, size_t len, void* u) {
                static_cast<Client*>(u)->responses[id].body.append(reinterpret_cast<const char*>(d), len);
                return 0;
            });
        nghttp2_session_callbacks_set_on_stream_close_callback(
            cb, [](nghttp2_session*, int32_t id, uint32_t code, void* u) {
                auto& r = static_cast<Client*>(u)->responses[id];
                r.closed = true;
                r.close_code = code;
                return 0;
            });
        nghttp2_session_client_new(&session, cb, this);
        nghttp2_session_callbacks_del(cb);
        nghttp2_submit_settings(session, NGHTTP2_FLAG_NONE, nullptr, 0);
    }
    ~Client() { nghttp2_session_del(session); }
    std::int32_t request(std::string_view method, std::string_view path, const std::string* body = nullptr) {
        auto u8 = [](std::string_view s) { return reinterpret_cast<uint8_t*>(const_cast<char*>(s.data())); };
        nghttp2_nv nva[] = {{u8(":method"), u8(method), 7, method.size(), 0},
                            {u8(":scheme"), u8("https"), 7, 5, 0},
                            {u8(":authority"), u8("localhost"), 10, 9, 0},
                            {u8(":path"), u8(path), 5, path.size(), 0}};
        nghttp2_data_provider prov{};
        if (body) {
            upload = *body;
            prov.read_callback = [](nghttp2_session*, int32_t, uint8_t* buf, size_t len, uint32_t* flags,
                                    nghttp2_data_source*, void* u) -> ssize_t {
                auto& up = static_cast<Client*>(u)->upload;
                std::size_t n = std::min(len, up.size());
                std::memcpy(buf, up.data(), n);
                up.erase(0, n);
                if (up.empty()) *flags |= NGHTTP2_DATA_FLAG_EOF;
                return static_cast<ssize_t>(n);
            };
        }
        return nghttp2_submit_request(session, nullptr, nva, 4, body ? &prov : nullptr, nullptr);
    }
    std::string out() {
        std::string o;
        const uint8_t* d;
        ssize_t n;
        while ((n = nghttp2_session_mem_send(session, &d)) > 0)
            o.append(reinterpret_cast<const char*>(d), static_cast<std::size_t>(n));
        return o;
    }
    void in(const std::string& bytes) {
        nghttp2_session_mem_recv(session, reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
    }
    nghttp2_session* session = nullptr;
    std::map<std::int32_t, Response> responses;
    std::string upload;
};

// Runs client and server against each other until neither has anything to send.
void converse(Client& c, Harness& h) {
    for (int i = 0; i < 50; ++i) {
        std::string to_server = c.out();
        if (!to_server.empty()) {
            ASSERT_TRUE(h.feed(to_server).is_ok());
        }
        std::string to_client;
        h.session->send(to_client, 1 << 24);
        if (to_server.empty() && to_client.empty()) return;
        c.in(to_client);
    }
}

// ---- tests ----

TEST(ServerSession, AnswersRequestsWithLowercaseHeaders) {
    Harness h;
    Client c;
    std::int32_t a = c.request("GET", "/a?x=1");
    std::string body = "hello body";
    std::int32_t b = c.request("POST", "/b", &body);
    converse(c, h);
    ASSERT_EQ(h.recorder.requests.size(), 2u);
    EXPECT_EQ(h.recorder.requests[0].method, "GET");
    EXPECT_EQ(h.recorder.requests[0].path, "/a?x=1");
    EXPECT_EQ(h.recorder.requests[0].authority, "localhost");
    EXPECT_EQ(h.recorder.requests[1].body, "hello body");
    EXPECT_EQ(c.responses[a].headers[":status"], "200");
    EXPECT_EQ(c.responses[a].headers["content-type"], "text/plain");
    EXPECT_EQ(c.responses[a].headers["x-custom"], "1");
    EXPECT_EQ(c.responses[a].body, "path=/a?x=1");
    EXPECT_EQ(c.responses[b].body, "path=/b");
    EXPECT_TRUE(c.responses[b].closed);
    EXPECT_EQ(h.session->active_streams(), 0u);
}

TEST(ServerSession, RequestIdsAreNeverIndexedButTheirNameIs) {
    Harness h;
    h.recorder.with_request_ids = true;
    Client c;
    std::int32_t ids[] = {c.request("GET", "/1"), c.request("GET", "/2"), c.request("GET", "/3")};
    converse(c, h);
    for (std::int32_t id : ids) {
        Client::Response& r = c.responses[id];
        EXPECT_EQ(r.headers["x-request-id"], "id-" + std::to_string(id));
        EXPECT_EQ(r.headers["x-long-mixed-case-field-name"], "v");  // lowered
    }
    // The first value enters the table (so its name can be referred to); the others are never indexed.
    EXPECT_FALSE(c.responses[ids[0]].never_indexed["x-request-id"]);
    EXPECT_TRUE(c.responses[ids[1]].never_indexed["x-request-id"]);
    EXPECT_TRUE(c.responses[ids[2]].never_indexed["x-request-id"]);
    EXPECT_FALSE(c.responses[ids[2]].never_indexed["x-custom"]);
}

TEST(ServerSession, StreamsABodyWrittenLater) {
    Harness h;
    h.recorder.answer = false;
    Client c;
    std::int32_t id = c.request("GET", "/stream");
    converse(c, h);
    ASSERT_EQ(h.recorder.requests.size(), 1u);
    HeaderField ct{"content-type", "text/event-stream"};
    ASSERT_TRUE(h.session->start_stream(id, 200, {&ct, 1}).is_ok());
    converse(c, h);
    EXPECT_EQ(c.responses[id].headers[":status"], "200");
    EXPECT_FALSE(c.responses[id].closed);
    ASSERT_TRUE(h.session->write(id, "data: 1\n\n").is_ok());
    converse(c, h);
    ASSERT_TRUE(h.session->write(id, "data: 2\n\n").is_ok());
    ASSERT_TRUE(h.session->end(id).is_ok());
    converse(c, h);
    EXPECT_EQ(c.responses[id].body, "data: 1\n\ndata: 2\n\n");
    EXPECT_TRUE(c.responses[id].closed);
    EXPECT_EQ(c.responses[id].close_code, 0u);
    EXPECT_TRUE(h.session->write(id, "late").is_not_found());
}

TEST(ServerSession, ClientResetOfAnAnsweringStreamIsReported) {
    Harness h;
    h.recorder.answer = false;
    Client c;
    std::int32_t id = c.request("GET", "/slow");
    converse(c, h);
    nghttp2_submit_rst_stream(c.session, NGHTTP2_FLAG_NONE, id, NGHTTP2_CANCEL);
    converse(c, h);
    ASSERT_EQ(h.recorder.resets.size(), 1u);
    EXPECT_EQ(h.recorder.resets[0], id);
    EXPECT_TRUE(h.session->respond(id, 200, {}, "x").is_not_found());
    EXPECT_EQ(h.session->active_streams(), 0u);
}

TEST(ServerSession, QueuedBodyBytesWaitForThePeersWindow) {
    Harness h;
    h.recorder.answer = false;
    Client c;
    std::int32_t id = c.request("GET", "/bulk");
    converse(c, h);
    ASSERT_TRUE(h.session->start_stream(id, 200, {}).is_ok());
    ASSERT_TRUE(h.session->write(id, std::string(100000, 'x')).is_ok());
    EXPECT_EQ(h.session->queued_bytes(id), 100000u);
    EXPECT_EQ(h.session->body_bytes_sent(id), 0u);
    std::string out;
    h.session->send(out, 1 << 24);  // the client's initial window (65535) and no WINDOW_UPDATE yet
    EXPECT_EQ(h.session->queued_bytes(id), 100000u - 65535u);
    EXPECT_EQ(h.session->body_bytes_sent(id), 65535u);
    c.in(out);
    converse(c, h);  // the client's WINDOW_UPDATEs let the rest go
    EXPECT_EQ(h.session->queued_bytes(id), 0u);
    EXPECT_EQ(h.session->body_bytes_sent(id), 100000u);
    EXPECT_EQ(c.responses[id].body.size(), 100000u);
    EXPECT_EQ(h.session->queued_bytes(id + 2), 0u);  // unknown streams
    EXPECT_EQ(h.session->body_bytes_sent(id + 2), 0u);
}

TEST(ServerSession, BytesSentAreKnownWhenTheClientResetsAStream) {
    Harness h;
    h.recorder.answer = false;
    Client c;
    std::int32_t id = c.request("GET", "/stream");
    converse(c, h);
    ASSERT_TRUE(h.session->start_stream(id, 200, {}).is_ok());
    ASSERT_TRUE(h.session->write(id, "0123456789").is_ok());
    converse(c, h);
    nghttp2_submit_rst_stream(c.session, NGHTTP2_FLAG_NONE, id, NGHTTP2_CANCEL);
    converse(c, h);
    ASSERT_EQ(h.recorder.reset_bytes_sent.size(), 1u);
    EXPECT_EQ(h.recorder.reset_bytes_sent[0], 10u);
    EXPECT_EQ(h.session->body_bytes_sent(id), 0u);  // forgotten after the call
}

TEST(ServerSession, BodyOverTheLimitIsAnswered413) {
    SessionConfig cfg;
    cfg.max_body_bytes = 10;
    Harness h(cfg);
    Client c;
    std::string body(100, 'x');
    std::int32_t id = c.request("POST", "/upload", &body);
    converse(c, h);
    ASSERT_EQ(h.recorder.requests.size(), 1u);
    EXPECT_EQ(h.recorder.requests[0].error_status, 413);
    EXPECT_EQ(c.responses[id].headers[":status"], "413");
}

TEST(ServerSession, HeaderListOverTheLimitIsAnswered431) {
    SessionConfig cfg;
    cfg.max_header_list_size = 200;
    Harness h(cfg);
    std::string block = get_block("/") + literal("x-big", std::string(300, 'a'));
    ASSERT_TRUE(h.feed(client_start() + frame(kHeaders, kEndHeaders | kEndStream, 1, block)).is_ok());
    ASSERT_EQ(h.recorder.requests.size(), 1u);
    EXPECT_EQ(h.recorder.requests[0].error_status, 431);
}

TEST(ServerSession, EnforcesMaxConcurrentStreams) {
    SessionConfig cfg;
    cfg.max_concurrent_streams = 2;
    Harness h(cfg);
    h.recorder.answer = false;  // every stream stays open
    ASSERT_TRUE(h.feed(client_start()).is_ok());
    h.output();  // the server's SETTINGS go out; the client acknowledges them
    std::string in = frame(kSettings, kAck, 0, "");
    for (std::uint32_t id : {1u, 3u, 5u})
        in += frame(kHeaders, kEndHeaders | kEndStream, id, get_block("/"));
    EXPECT_TRUE(h.feed(in).is_invalid_argument());
    EXPECT_EQ(h.recorder.requests.size(), 2u);
    // Past the acknowledged limit: a connection error (RFC 9113 §5.1.2 allows it).
    EXPECT_EQ(goaway_code(h.output()), NGHTTP2_PROTOCOL_ERROR);
}

struct FloodCase {
    const char* name;
    SessionConfig config;
    std::string (*attack)();
};

SessionConfig with(void (*tweak)(SessionConfig&)) {
    SessionConfig c;
    tweak(c);
    return c;
}

TEST(ServerSession, FloodsEndWithEnhanceYourCalm) {
    const FloodCase cases[] = {
        {"ping flood", with([](SessionConfig& c) { c.control_burst = 20; }),
         [] {
             std::string s;
             for (int i = 0; i < 40; ++i)
                 s += frame(kPing, 0, 0, "12345678");
             return s;
         }},
        {"settings flood", with([](SessionConfig& c) { c.control_burst = 20; }),
         [] {
             std::string s;
             for (int i = 0; i < 40; ++i)
                 s += frame(kSettings, 0, 0, "");
             return s;
         }},
        {"empty data flood", with([](SessionConfig& c) { c.control_burst = 20; }),
         [] {
             std::string s = frame(kHeaders, kEndHeaders, 1,
                                   literal(":method", "POST") + literal(":scheme", "http") +
                                       literal(":authority", "a") + literal(":path", "/"));
             for (int i = 0; i < 40; ++i)
                 s += frame(kData, 0, 1, "");
             return s;
         }},
        {"rapid reset", with([](SessionConfig& c) { c.reset_burst = 10; }),
         [] {
             std::string s;
             for (std::uint32_t id = 1; id < 60; id += 2) {
                 s += frame(kHeaders, kEndHeaders | kEndStream, id, get_block("/"));
                 s += frame(kRst, 0, id, std::string("\0\0\0\x8", 4));
             }
             return s;
         }},
        {"continuation flood", with([](SessionConfig& c) { c.max_continuations = 4; }),
         [] {
             std::string s = frame(kHeaders, 0, 1, get_block("/"));
             for (int i = 0; i < 10; ++i)
                 s += frame(kContinuation, 0, 1, literal("x-a", "b"));
             return s;
         }},
        {"hpack bomb", with([](SessionConfig& c) { c.max_header_list_size = 8192; }),
         [] {
             // One 4 KB entry in the dynamic table, then referenced by index 62 a thousand times.
             std::string block = get_block("/") + literal("x-bomb", std::string(4000, 'b'), true);
             for (int i = 0; i < 1000; ++i)
                 block.push_back(static_cast<char>(0x80 | 62));
             return frame(kHeaders, kEndHeaders | kEndStream, 1, block);
         }},
    };
    for (const FloodCase& c : cases) {
        Harness h(c.config);
        h.recorder.answer = false;
        base::Status s = h.feed(client_start() + c.attack());
        EXPECT_TRUE(s.is_resource_exhausted()) << c.name << ": " << s.to_string();
        EXPECT_EQ(goaway_code(h.output()), NGHTTP2_ENHANCE_YOUR_CALM) << c.name;
        EXPECT_TRUE(h.session->done()) << c.name;
        EXPECT_EQ(h.session->error_code(), ErrorCode::kEnhanceYourCalm) << c.name;
    }
}

TEST(ServerSession, ControlFramesWithinTheBudgetAreAnswered) {
    SessionConfig cfg;
    cfg.control_burst = 20;
    Harness h(cfg);
    std::string in = client_start();
    for (int i = 0; i < 10; ++i)
        in += frame(kPing, 0, 0, "abcdefgh");
    ASSERT_TRUE(h.feed(in).is_ok());
    int acks = 0;
    for (const Frame& f : h.output())
        acks += f.type == kPing && (f.flags & kAck) && f.payload == "abcdefgh";
    EXPECT_EQ(acks, 10);
    EXPECT_FALSE(h.session->done());
}

TEST(ServerSession, OpeningASkippedStreamIdIsAProtocolError) {
    Harness h;
    std::string in = client_start() + frame(kHeaders, kEndHeaders | kEndStream, 5, get_block("/five"));
    ASSERT_TRUE(h.feed(in).is_ok());
    EXPECT_EQ(h.recorder.requests.size(), 1u);
    base::Status s = h.feed(frame(kHeaders, kEndHeaders | kEndStream, 3, get_block("/three")));
    EXPECT_TRUE(s.is_invalid_argument()) << s.to_string();
    EXPECT_EQ(goaway_code(h.output()), NGHTTP2_PROTOCOL_ERROR);
    EXPECT_EQ(h.recorder.requests.size(), 1u);
}

TEST(ServerSession, BadPrefaceIsAProtocolError) {
    Harness h;
    base::Status s = h.feed("GET / HTTP/1.1\r\nHost: x\r\n\r\n");
    EXPECT_TRUE(s.is_invalid_argument()) << s.to_string();
    EXPECT_EQ(goaway_code(h.output()), NGHTTP2_PROTOCOL_ERROR);
    EXPECT_TRUE(h.session->done());
}

TEST(ServerSession, GracefulShutdownLetsOpenStreamsFinish) {
    Harness h;
    h.recorder.answer = false;
    Client c;
    std::int32_t id = c.request("GET", "/a");
    converse(c, h);
    h.session->shutdown();
    converse(c, h);
    EXPECT_FALSE(h.session->done());
    ASSERT_TRUE(h.session->respond(id, 204, {}, "").is_ok());
    converse(c, h);
    EXPECT_EQ(c.responses[id].headers[":status"], "204");
    EXPECT_TRUE(h.session->done());
}

// ---- h2c upgrade (RFC 7540 §3.2) and protocol statistics ----

TEST(ServerSession, UpgradeServesTheRequestAsStreamOne) {
    Harness h;
    HeaderField fields[] = {{"Host", "x"},
                            {"Connection", "Upgrade, HTTP2-Settings"},
                            {"Upgrade", "h2c"},
                            {"HTTP2-Settings", "AAMAAABkAAQAAP__"},
                            {"X-A", "b"}};
    RequestHead r;
    r.method = "POST";
    r.scheme = "http";
    r.authority = "x";
    r.path = "/up?q=1";
    r.headers = fields;
    r.body = "hi";
    ASSERT_TRUE(h.session->upgrade("AAMAAABkAAQAAP__", r).is_ok());
    ASSERT_EQ(h.recorder.requests.size(), 1u);
    const Received& got = h.recorder.requests[0];
    EXPECT_EQ(got.id, 1);
    EXPECT_EQ(got.method, "POST");
    EXPECT_EQ(got.path, "/up?q=1");
    EXPECT_EQ(got.authority, "x");
    EXPECT_EQ(got.body, "hi");
    using Fields = std::vector<std::pair<std::string, std::string>>;
    EXPECT_EQ(got.headers, (Fields{{"host", "x"}, {"x-a", "b"}}));  // connection-specific fields dropped
    std::vector<Frame> out;
    for (Frame& f : h.output())
        if (f.type != 8) out.push_back(std::move(f));  // WINDOW_UPDATE (the larger connection window) aside
    ASSERT_GE(out.size(), 3u);
    EXPECT_EQ(out[0].type, kSettings);  // the server preface comes first
    EXPECT_EQ(out[1].type, kHeaders);
    EXPECT_EQ(out[1].stream, 1u);
    EXPECT_EQ(out[2].type, kData);
    EXPECT_EQ(out[2].payload, "path=/up?q=1");
    EXPECT_EQ(h.session->stats().streams_opened, 1u);
    // The client's preface and its next stream (3) follow.
    ASSERT_TRUE(h.feed(client_start() + frame(kHeaders, kEndHeaders | kEndStream, 3, get_block("/next"))).is_ok());
    ASSERT_EQ(h.recorder.requests.size(), 2u);
    EXPECT_EQ(h.recorder.requests[1].id, 3);
    EXPECT_EQ(h.session->stats().streams_opened, 2u);
}

TEST(ServerSession, UpgradeWithBadSettingsChangesNothing) {
    for (const char* settings : {"!!", "AAEAAB", "AAIAAAAC"}) {
        Harness h;
        RequestHead r;
        r.method = "GET";
        r.path = "/";
        base::Status st = h.session->upgrade(settings, r);
        EXPECT_TRUE(st.is_invalid_argument()) << settings;
        EXPECT_TRUE(h.recorder.requests.empty()) << settings;
        EXPECT_EQ(h.session->stats().streams_opened, 0u) << settings;
    }
}

TEST(ServerSession, StatsCountResetsGoawaysAndFloods) {
    Harness h;
    h.recorder.answer = false;
    std::string in = client_start();
    in += frame(kHeaders, kEndHeaders, 1, get_block("/a")) + frame(kRst, 0, 1, std::string("\0\0\0\x08", 4));
    in += frame(kHeaders, kEndHeaders | kEndStream, 3, get_block("/b"));
    ASSERT_TRUE(h.feed(in).is_ok());
    h.session->reset(3, ErrorCode::kRefusedStream);
    h.session->shutdown();
    (void)h.output();
    const SessionStats& st = h.session->stats();
    EXPECT_EQ(st.streams_opened, 2u);
    EXPECT_EQ(st.rst_received[8], 1u);  // CANCEL
    EXPECT_EQ(st.rst_sent[7], 1u);      // REFUSED_STREAM
    EXPECT_EQ(st.goaway_sent[0], 1u);   // NO_ERROR
    EXPECT_EQ(st.floods, (std::array<std::uint64_t, kFloodKinds>{}));

    SessionConfig config;
    config.control_burst = 5;
    Harness f(config);
    std::string ping = client_start();
    for (int i = 0; i < 10; ++i)
        ping += frame(kPing, 0, 0, "12345678");
    EXPECT_TRUE(f.feed(ping).is_resource_exhausted());
    (void)f.output();
    EXPECT_EQ(f.session->stats().floods[static_cast<std::size_t>(FloodKind::kControlFrames)], 1u);
    EXPECT_EQ(f.session->stats().goaway_sent[11], 1u);  // ENHANCE_YOUR_CALM
}

// ---- extended CONNECT (RFC 8441) ----

TEST(ServerSession, SettingsEnableTheConnectProtocol) {
    Harness h;
    ASSERT_TRUE(h.feed(client_start()).is_ok());
    std::map<std::uint16_t, std::uint32_t> settings;
    for (const Frame& f : h.output()) {
        if (f.type != kSettings || (f.flags & kAck)) continue;
        for (std::size_t i = 0; i + 6 <= f.payload.size(); i += 6) {
            auto id = static_cast<std::uint16_t>(static_cast<std::uint8_t>(f.payload[i]) << 8 |
                                                 static_cast<std::uint8_t>(f.payload[i + 1]));
            settings[id] = be32(f.payload, i + 2);
        }
    }
    EXPECT_EQ(settings[NGHTTP2_SETTINGS_ENABLE_CONNECT_PROTOCOL], 1u);
}

TEST(ServerSession, ExtendedConnectIsATunnelWithConsumedWindows) {
    SessionConfig config;
    config.initial_window_size = 64;
    Harness h(config);
    h.recorder.answer = false;
    settle(h);
    ASSERT_TRUE(h.feed(frame(kHeaders, kEndHeaders, 1, connect_block("websocket"))).is_ok());
    ASSERT_EQ(h.recorder.requests.size(), 1u);  // delivered at the end of its headers, before any DATA
    const Received& r = h.recorder.requests[0];
    EXPECT_EQ(r.method, "CONNECT");
    EXPECT_EQ(r.protocol, "websocket");
    EXPECT_EQ(r.path, "/ws");
    EXPECT_EQ(r.body, "");
    EXPECT_TRUE(h.session->receiving() == false);
    EXPECT_EQ(h.session->active_streams(), 1u);

    ASSERT_TRUE(h.session->start_stream(1, 200, {}).is_ok());
    std::vector<Frame> out = h.output();
    ASSERT_TRUE(has_frame(out, kHeaders, 1));
    for (const Frame& f : out)
        EXPECT_FALSE(f.type == kHeaders && (f.flags & kEndStream));

    // DATA goes to on_stream_data; the window reopens only once the owner consumed it.
    std::string chunk(60, 'x');
    ASSERT_TRUE(h.feed(frame(kData, 0, 1, chunk)).is_ok());
    EXPECT_EQ(h.recorder.tunnel_data[1], chunk);
    EXPECT_FALSE(has_frame(h.output(), kWindowUpdate, 1));
    h.session->consume(1, chunk.size());
    EXPECT_TRUE(has_frame(h.output(), kWindowUpdate, 1));

    // Both directions, then the client's END_STREAM and ours close the stream cleanly.
    ASSERT_TRUE(h.session->write(1, "pong").is_ok());
    out = h.output();
    ASSERT_TRUE(has_frame(out, kData, 1));
    EXPECT_EQ(out.back().payload, "pong");
    ASSERT_TRUE(h.feed(frame(kData, kEndStream, 1, "")).is_ok());
    EXPECT_EQ(h.recorder.ends, std::vector<StreamId>{1});
    EXPECT_TRUE(h.recorder.closed.empty());
    ASSERT_TRUE(h.session->end(1).is_ok());
    out = h.output();
    ASSERT_TRUE(has_frame(out, kData, 1));
    EXPECT_FALSE(has_frame(out, kRst, 1));  // the client had ended: no RST_STREAM needed
    EXPECT_EQ(h.recorder.closed, std::vector<StreamId>{1});
    EXPECT_TRUE(h.recorder.resets.empty());
    EXPECT_EQ(h.session->active_streams(), 0u);
}

TEST(ServerSession, ClientResetOfATunnelIsReported) {
    Harness h;
    h.recorder.answer = false;
    settle(h);
    ASSERT_TRUE(h.feed(frame(kHeaders, kEndHeaders, 1, connect_block("websocket"))).is_ok());
    ASSERT_TRUE(h.session->start_stream(1, 200, {}).is_ok());
    h.output();
    ASSERT_TRUE(h.feed(frame(kData, 0, 1, "abc")).is_ok());  // never consumed: returned to the connection
    ASSERT_TRUE(h.feed(frame(kRst, 0, 1, std::string("\0\0\0\x08", 4))).is_ok());
    EXPECT_EQ(h.recorder.resets, std::vector<StreamId>{1});
    EXPECT_TRUE(h.recorder.closed.empty());
    EXPECT_TRUE(h.recorder.ends.empty());
    // The connection goes on.
    h.recorder.answer = true;
    ASSERT_TRUE(h.feed(frame(kHeaders, kEndHeaders | kEndStream, 3, get_block("/next"))).is_ok());
    EXPECT_TRUE(has_frame(h.output(), kHeaders, 3));
}

TEST(ServerSession, ProtocolOutsideAConnectIsRefused) {
    Harness h;
    settle(h);
    ASSERT_TRUE(h.feed(frame(kHeaders, kEndHeaders | kEndStream, 1, connect_block("websocket", "GET"))).is_ok());
    EXPECT_TRUE(h.recorder.requests.empty());
    EXPECT_TRUE(has_frame(h.output(), kRst, 1));
}

TEST(ServerSession, RequestBodiesStillReopenTheWindows) {
    SessionConfig config;
    config.initial_window_size = 64;
    Harness h(config);
    h.recorder.answer = false;
    settle(h);
    std::string block =
        literal(":method", "POST") + literal(":scheme", "https") + literal(":authority", "x") + literal(":path", "/up");
    ASSERT_TRUE(h.feed(frame(kHeaders, kEndHeaders, 1, block)).is_ok());
    ASSERT_TRUE(h.feed(frame(kData, 0, 1, std::string(60, 'y'))).is_ok());
    EXPECT_TRUE(has_frame(h.output(), kWindowUpdate, 1));
    ASSERT_TRUE(h.feed(frame(kData, kEndStream, 1, "z")).is_ok());
    ASSERT_EQ(h.recorder.requests.size(), 1u);
    EXPECT_EQ(h.recorder.requests[0].body, std::string(60, 'y') + "z");
    EXPECT_TRUE(h.recorder.tunnel_data.empty());
}

TEST(ServerSession, MalformedRequestsAreResetWithProtocolError) {
    constexpr std::int64_t kProtocolError = 1;
    const std::string upper = get_block("/") + literal("X-Upper", "a");
    const std::string bad_value = get_block("/") + literal("x-a", "a\r\nb");
    const std::string no_path = literal(":method", "GET") + literal(":scheme", "https") + literal(":authority", "a");
    const std::string te = get_block("/") + literal("te", "gzip");
    const std::string late_pseudo = literal("accept", "*/*") + get_block("/");
    for (const std::string& block : {upper, bad_value, no_path, te, late_pseudo}) {
        Harness h;
        settle(h);
        ASSERT_TRUE(h.feed(frame(kHeaders, kEndHeaders | kEndStream, 1, block)).is_ok());
        EXPECT_TRUE(h.recorder.requests.empty());
        EXPECT_EQ(rst_code(h.output(), 1), kProtocolError);
        // The connection goes on: the HPACK state stayed in step, and the next request is answered.
        ASSERT_TRUE(h.feed(frame(kHeaders, kEndHeaders | kEndStream, 3, get_block("/next"))).is_ok());
        EXPECT_EQ(h.recorder.requests.size(), 1u);
    }
}

TEST(ServerSession, BodyAndContentLengthMustAgree) {
    constexpr std::int64_t kProtocolError = 1;
    const std::string head = literal(":method", "POST") + literal(":scheme", "https") + literal(":authority", "x") +
                             literal(":path", "/up") + literal("content-length", "3");
    const std::string trailer = literal("x-sum", "1");
    struct Case {
        const char* what;
        std::vector<std::string> frames;  // after the HEADERS
        bool delivered;
    };
    const std::vector<Case> cases = {
        {"one byte too many", {frame(kData, kEndStream, 1, "abcd")}, false},
        {"one byte short", {frame(kData, kEndStream, 1, "ab")}, false},
        {"trailers without END_STREAM", {frame(kData, 0, 1, "abc"), frame(kHeaders, kEndHeaders, 1, trailer)}, false},
        {"trailers ending it",
         {frame(kData, 0, 1, "abc"), frame(kHeaders, kEndHeaders | kEndStream, 1, trailer)},
         true},
    };
    for (const Case& c : cases) {
        Harness h;
        settle(h);
        ASSERT_TRUE(h.feed(frame(kHeaders, kEndHeaders, 1, head)).is_ok());
        for (const std::string& f : c.frames)
            ASSERT_TRUE(h.feed(f).is_ok()) << c.what;
        if (c.delivered) {
            ASSERT_EQ(h.recorder.requests.size(), 1u) << c.what;
            EXPECT_EQ(h.recorder.requests[0].body, "abc");
        } else {
            EXPECT_TRUE(h.recorder.requests.empty()) << c.what;
            EXPECT_EQ(rst_code(h.output(), 1), kProtocolError) << c.what;
        }
    }
}

}  // namespace
}  // namespace slipstream::http::h2
