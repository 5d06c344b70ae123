// Client over HTTP/2 on real sockets: our own engine's HTTP/2 session as the server (TLS with ALPN h2, and h2c by
// prior knowledge), streams multiplexed on one connection, flow control under pause, cancel as RST_STREAM, per-stream
// timeouts, REFUSED_STREAM and GOAWAY retries, idle expiry; raw servers sending malformed and random frames.
#include <gtest/gtest.h>

#include <atomic>
#include <random>
#include <string>
#include <vector>

#include "http/h2/session_test_harness.h"
#include "store/http/client.h"
#include "store/http/client_test_fixture.h"
#include "store/http/h2_test_server.h"

namespace slipstream::store::http {
namespace {

using testing::H2TestServer;
using testing::Reply;
using testing::Seen;
using testing::ServerConn;
using testing::TestServer;
using namespace std::chrono_literals;
namespace raw = ::slipstream::http::h2::test;

Reply text(std::string body) {
    Reply r;
    r.headers = {{"content-type", "text/plain"}};
    r.chunks = {std::move(body)};
    return r;
}

// Answers `body`, except /never, which gets no answer at all.
H2TestServer::Route answer_unless_never(std::string body) {
    return [body](const Seen& s) {
        Reply r = text(body);
        r.never = s.path == "/never";
        return r;
    };
}

ClientOptions h2c_options() {
    ClientOptions o;
    o.http2 = Http2Mode::kPriorKnowledge;
    return o;
}

ClientOptions tls_options() {
    ClientOptions o;
    o.tls.ca_file = pki().ca_cert;
    return o;
}

TEST_F(ClientTest, Http2OverTlsChosenByAlpn) {
    H2TestServer server([](const Seen& s) { return text("you asked " + s.method + " " + s.path); }, pki().server_cert,
                        pki().server_key);
    auto client = make(tls_options());
    for (int i = 0; i < 3; ++i) {
        Outcome out = fetch(*client, get(server.url("/x?y=" + std::to_string(i))));
        ASSERT_TRUE(out.status.is_ok()) << out.status.to_string();
        EXPECT_EQ(out.head->status, 200);
        EXPECT_TRUE(out.head->http2);
        EXPECT_EQ(out.head->header("content-type"), "text/plain");
        EXPECT_EQ(out.body, "you asked GET /x?y=" + std::to_string(i));
    }
    Request post = get(server.url("/p"));
    post.method = "POST";
    post.body = std::string(100'000, 'b');  // past the first 65535 bytes of window
    post.headers = {{"Authorization", "Bearer k"}};
    Outcome out = fetch(*client, std::move(post));
    ASSERT_TRUE(out.status.is_ok()) << out.status.to_string();
    EXPECT_EQ(server.connections(), 1);
    EXPECT_EQ(server.chosen(), std::vector<std::string>{"h2"});
    std::vector<Seen> seen = server.seen();
    ASSERT_EQ(seen.size(), 4u);
    EXPECT_EQ(seen[3].method, "POST");
    EXPECT_EQ(seen[3].body.size(), 100'000u);
    EXPECT_EQ(seen[3].authority, "127.0.0.1:" + std::to_string(server.port()));
    std::vector<std::pair<std::string, std::string>> want = {
        {"user-agent", "slipstream"}, {"authorization", "Bearer k"}, {"content-length", "100000"}};
    EXPECT_EQ(seen[3].headers, want);
    ClientStats s = client->stats();
    EXPECT_EQ(s.connects, 1u);
    EXPECT_EQ(s.h2_streams, 4u);
    EXPECT_EQ(s.reused, 3u);
    EXPECT_EQ(s.h2_connections, 1u);
    EXPECT_EQ(s.idle, 1u);
}

TEST_F(ClientTest, H2cByPriorKnowledgeAndPerOriginChoice) {
    H2TestServer server([](const Seen&) { return text("plain h2"); });
    auto client = make(h2c_options());
    Outcome out = fetch(*client, get(server.url("/")));
    ASSERT_TRUE(out.status.is_ok()) << out.status.to_string();
    EXPECT_TRUE(out.head->http2);
    EXPECT_EQ(out.body, "plain h2");
    // The default (auto) speaks HTTP/1.1 over plain TCP, unless the origin is named.
    TestServer h1(echo_server("one"));
    ClientOptions by_origin;
    by_origin.http2_by_origin["http://127.0.0.1:" + std::to_string(server.port())] = Http2Mode::kPriorKnowledge;
    auto c2 = make(by_origin);
    out = fetch(*c2, get(server.url("/")));
    ASSERT_TRUE(out.status.is_ok()) << out.status.to_string();
    EXPECT_TRUE(out.head->http2);
    out = fetch(*c2, get(h1.url("/")));
    ASSERT_TRUE(out.status.is_ok()) << out.status.to_string();
    EXPECT_FALSE(out.head->http2);
    EXPECT_EQ(out.body, "one");
}

TEST_F(ClientTest, AutoSpeaksHttp1WhenTheServerChoosesIt) {
    TestServer alpn_h1(echo_server("h1 by alpn"), pki().server_cert, pki().server_key, {"http/1.1"});
    TestServer no_alpn(echo_server("h1 without alpn"), pki().server_cert, pki().server_key);
    auto client = make(tls_options());
    Outcome out = fetch(*client, get(alpn_h1.url()));
    ASSERT_TRUE(out.status.is_ok()) << out.status.to_string();
    EXPECT_FALSE(out.head->http2);
    EXPECT_EQ(alpn_h1.chosen(), std::vector<std::string>{"http/1.1"});
    out = fetch(*client, get(no_alpn.url()));
    ASSERT_TRUE(out.status.is_ok()) << out.status.to_string();
    EXPECT_EQ(out.body, "h1 without alpn");
    // Off: an h2-first server is offered http/1.1 only.
    TestServer both(echo_server("chose h1"), pki().server_cert, pki().server_key, {"h2", "http/1.1"});
    ClientOptions off = tls_options();
    off.http2 = Http2Mode::kOff;
    auto c2 = make(off);
    out = fetch(*c2, get(both.url()));
    ASSERT_TRUE(out.status.is_ok()) << out.status.to_string();
    EXPECT_EQ(both.chosen(), std::vector<std::string>{"http/1.1"});
    // Prior knowledge over TLS against a server that only speaks http/1.1: refused, named.
    ClientOptions prior = tls_options();
    prior.http2 = Http2Mode::kPriorKnowledge;
    auto c3 = make(prior);
    out = fetch(*c3, get(alpn_h1.url()));
    EXPECT_FALSE(out.status.is_ok());
}

TEST_F(ClientTest, AutoOpensMoreConnectionsOnceTheOriginTurnsOutHttp1) {
    // One connection while the protocol is unknown; once ALPN said http/1.1, the waiting calls get their own.
    TestServer server(
        [](ServerConn& c) {
            while (!c.read_request().empty()) {
                c.sleep_ms(100);
                if (!c.write(ok_response("slow h1"))) return;
            }
        },
        pki().server_cert, pki().server_key, {"http/1.1"});
    auto client = make(tls_options());
    std::vector<Outcome> outs(6);
    ASSERT_TRUE(fetch_all(*client, server.url("/"), outs));
    for (auto& out : outs)
        EXPECT_TRUE(out.status.is_ok()) << out.status.to_string();
    EXPECT_EQ(server.connections(), 6);
    EXPECT_EQ(server.max_concurrent(), 6);
}

TEST_F(ClientTest, Http2MultiplexesConcurrentCallsOnOneConnection) {
    Reply slow = text("x");
    slow.chunks = {"a", "b", "c"};
    slow.gap_ms = 150;  // every request arrives before any answer ends
    H2TestServer server([&](const Seen&) { return slow; }, pki().server_cert, pki().server_key);
    ClientOptions o = tls_options();
    o.max_connections_per_origin = 16;
    auto client = make(o);
    std::vector<Outcome> outs(20);
    ASSERT_TRUE(fetch_all(*client, server.url("/m"), outs));
    for (auto& out : outs) {
        ASSERT_TRUE(out.status.is_ok()) << out.status.to_string();
        EXPECT_EQ(out.body, "abc");
    }
    EXPECT_EQ(server.connections(), 1);
    EXPECT_EQ(server.max_streams(), 20);
    // A stream limit: at most 4 at once, the rest wait in the queue.
    ClientOptions four = tls_options();
    four.h2.max_concurrent_streams = 4;
    H2TestServer limited([&](const Seen&) { return slow; }, pki().server_cert, pki().server_key);
    auto c2 = make(four);
    std::vector<Outcome> more(10);
    ASSERT_TRUE(fetch_all(*c2, limited.url("/l"), more));
    for (auto& out : more)
        EXPECT_TRUE(out.status.is_ok()) << out.status.to_string();
    EXPECT_EQ(limited.connections(), 1);
    EXPECT_EQ(limited.max_streams(), 4);
}

TEST_F(ClientTest, Http2PausedStreamHoldsTheServerAtItsWindow) {
    Reply big;
    for (int i = 0; i < 16; ++i)
        big.chunks.push_back(std::string(64 * 1024, static_cast<char>('a' + i)));
    H2TestServer server([&](const Seen& s) { return s.path == "/big" ? big : text("small"); }, pki().server_cert,
                        pki().server_key);
    ClientOptions o = tls_options();
    o.h2.stream_window = 64 * 1024;
    auto client = make(o);
    Outcome out;
    std::shared_ptr<Call> call = start_paused(*client, get(server.url("/big")), out);
    ASSERT_TRUE(run_until([&] { return out.head.has_value(); }));
    run_for(300ms);  // the server would send all 1 MiB in this time without flow control
    EXPECT_LE(server.max_body_sent(), 64u * 1024);
    EXPECT_TRUE(out.body.empty());
    // Another stream on the same connection is not held back.
    Outcome other = fetch(*client, get(server.url("/small")));
    ASSERT_TRUE(other.status.is_ok()) << other.status.to_string();
    EXPECT_EQ(other.body, "small");
    call->resume();
    ASSERT_TRUE(run_until([&] { return out.ended; }));
    ASSERT_TRUE(out.status.is_ok()) << out.status.to_string();
    std::string want;
    for (const std::string& c : big.chunks)
        want += c;
    EXPECT_TRUE(out.body == want) << out.body.size();
    EXPECT_EQ(server.connections(), 1);
}

TEST_F(ClientTest, Http2CancelResetsOnlyItsStream) {
    Reply slow;
    for (int i = 0; i < 50; ++i)
        slow.chunks.push_back("tick ");
    slow.gap_ms = 20;
    H2TestServer server([&](const Seen& s) { return s.path == "/slow" ? slow : text("done"); });
    auto client = make(h2c_options());
    Outcome a;
    std::shared_ptr<Call> ca;
    ResponseCallbacks cb = record(a);
    cb.on_data = [&](std::string_view d) {
        a.body.append(d);
        ca->cancel();  // from inside on_data
    };
    ca = client->start(get(server.url("/slow")), std::move(cb));
    Outcome b;
    start(*client, get(server.url("/fast")), b);
    ASSERT_TRUE(run_until([&] { return a.ended && b.ended; }));
    EXPECT_TRUE(a.status.is_cancelled()) << a.status.to_string();
    EXPECT_EQ(a.ends, 1);
    EXPECT_EQ(a.body, "tick ");
    ASSERT_TRUE(b.status.is_ok()) << b.status.to_string();
    ASSERT_TRUE(run_until([&] { return !server.resets().empty(); }));
    EXPECT_EQ(server.resets(), std::vector<std::string>{"/slow"});
    // The connection stays for the next call.
    Outcome c = fetch(*client, get(server.url("/again")));
    EXPECT_TRUE(c.status.is_ok()) << c.status.to_string();
    EXPECT_EQ(server.connections(), 1);
}

TEST_F(ClientTest, Http2TimeoutsArePerStream) {
    H2TestServer server(answer_unless_never("quick"));
    auto client = make(h2c_options());
    Request never = get(server.url("/never"));
    never.timeouts.first_byte_ns = 100'000'000;
    Outcome a, b;
    start(*client, std::move(never), a);
    start(*client, get(server.url("/quick")), b);
    ASSERT_TRUE(run_until([&] { return a.ended && b.ended; }));
    EXPECT_TRUE(a.status.is_timeout()) << a.status.to_string();
    EXPECT_NE(a.status.message().find("first-byte timeout"), std::string::npos) << a.status.message();
    EXPECT_TRUE(b.status.is_ok()) << b.status.to_string();
    ASSERT_TRUE(run_until([&] { return !server.resets().empty(); }));
    EXPECT_EQ(server.resets(), std::vector<std::string>{"/never"});
}

TEST_F(ClientTest, Http2RefusedStreamsAreRetriedOthersAreNot) {
    std::atomic<int> refused{0};
    H2TestServer server([&](const Seen& s) {
        Reply r = text("second time");
        if (s.path == "/refuse" && refused++ == 0) r.reset_code = 7;  // REFUSED_STREAM: never processed
        if (s.path == "/broken") r.reset_code = 2;                    // INTERNAL_ERROR
        return r;
    });
    auto client = make(h2c_options());
    Request post = get(server.url("/refuse"));
    post.method = "POST";
    post.body = "{}";
    Outcome a;
    auto call = start(*client, std::move(post), a);
    ASSERT_TRUE(run_until([&] { return a.ended; }));
    ASSERT_TRUE(a.status.is_ok()) << a.status.to_string();
    EXPECT_EQ(a.body, "second time");
    EXPECT_EQ(call->attempts(), 2);
    Request broken = get(server.url("/broken"));
    broken.method = "POST";
    Outcome b = fetch(*client, std::move(broken));
    EXPECT_TRUE(b.status.is_unavailable()) << b.status.to_string();
    EXPECT_NE(b.status.message().find("INTERNAL_ERROR"), std::string::npos) << b.status.message();
    EXPECT_EQ(server.seen().size(), 3u);
}

// ---- raw servers: frames written by hand ----

// Reads client frames until `want` HEADERS frames arrived (after the 24-byte preface); their stream ids.
std::vector<std::uint32_t> read_headers(ServerConn& c, std::string& buf, std::size_t want) {
    std::vector<std::uint32_t> ids;
    bool preface = buf.empty();
    while (ids.size() < want) {
        if (!c.read_some(buf, 50)) return ids;
        if (preface && buf.size() >= 24) {
            buf.erase(0, 24);
            preface = false;
        }
        if (preface) continue;
        while (buf.size() >= 9) {
            std::size_t len = static_cast<std::uint8_t>(buf[0]) << 16 | static_cast<std::uint8_t>(buf[1]) << 8 |
                              static_cast<std::uint8_t>(buf[2]);
            if (buf.size() < 9 + len) break;
            auto f = raw::parse_frames(buf.substr(0, 9 + len));
            buf.erase(0, 9 + len);
            if (!f.empty() && f[0].type == raw::kHeaders) ids.push_back(f[0].stream);
        }
    }
    return ids;
}

std::string ok_head(std::uint32_t id, bool end = true) {
    return raw::frame(raw::kHeaders, raw::kEndHeaders | (end ? raw::kEndStream : 0), id,
                      raw::literal(":status", "200"));
}

TEST_F(ClientTest, Http2GoawayRetriesTheStreamsAboveItsLastId) {
    std::atomic<int> conns{0};
    TestServer server([&](ServerConn& c) {
        std::string buf;
        const bool first = conns++ == 0;
        std::vector<std::uint32_t> ids = read_headers(c, buf, first ? 3 : 2);
        std::string out = raw::frame(raw::kSettings, 0, 0, "");
        if (first) out += raw::frame(raw::kGoaway, 0, 0, raw::u32(1) + raw::u32(0)) + ok_head(1);
        for (std::uint32_t id : ids)
            if (!first) out += ok_head(id);
        c.write(out);
        c.wait_closed(2000);
    });
    auto client = make(h2c_options());
    Outcome a, b, d;
    Request post = get(server.url("/post"));
    post.method = "POST";
    auto ca = start(*client, get(server.url("/1")), a);
    auto cb = start(*client, get(server.url("/3")), b);
    auto cd = start(*client, std::move(post), d);  // not idempotent, but never processed: sent again
    ASSERT_TRUE(run_until([&] { return a.ended && b.ended && d.ended; }));
    EXPECT_TRUE(a.status.is_ok()) << a.status.to_string();
    EXPECT_TRUE(b.status.is_ok()) << b.status.to_string();
    EXPECT_TRUE(d.status.is_ok()) << d.status.to_string();
    EXPECT_EQ(ca->attempts(), 1);
    EXPECT_EQ(cb->attempts(), 2);
    EXPECT_EQ(cd->attempts(), 2);
    EXPECT_EQ(server.connections(), 2);
}

TEST_F(ClientTest, Http2AWholeResponseHeldByPauseSurvivesTheConnectionClosing) {
    TestServer server([&](ServerConn& c) {
        std::string buf;
        read_headers(c, buf, 1);
        c.write(raw::frame(raw::kSettings, 0, 0, "") + ok_head(1, false) +
                raw::frame(raw::kData, raw::kEndStream, 1, "the whole body"));
        c.close();  // the server is gone before the reader resumes
    });
    auto client = make(h2c_options());
    Outcome out;
    std::shared_ptr<Call> call = start_paused(*client, get(server.url("/")), out);
    ASSERT_TRUE(run_until([&] { return out.head.has_value(); }));
    run_for(200ms);
    EXPECT_FALSE(out.ended);
    call->resume();
    ASSERT_TRUE(run_until([&] { return out.ended; }));
    EXPECT_TRUE(out.status.is_ok()) << out.status.to_string();
    EXPECT_EQ(out.body, "the whole body");
    ASSERT_TRUE(run_until([&] { return client->stats().open == 0; }));
}

struct Bad {
    const char* name;
    std::string frames;  // after the server's SETTINGS
    const char* says;    // in the call's error
};

TEST_F(ClientTest, Http2MalformedServerFramesFailTheCallCleanly) {
    const std::vector<Bad> cases = {
        {"DATA before HEADERS", raw::frame(raw::kData, raw::kEndStream, 1, "x"), "DATA before the response head"},
        {"uppercase field",
         raw::frame(raw::kHeaders, raw::kEndHeaders | raw::kEndStream, 1,
                    raw::literal(":status", "200") + raw::literal("X-Big", "1")),
         "uppercase"},
        {"no status", raw::frame(raw::kHeaders, raw::kEndHeaders | raw::kEndStream, 1, raw::literal("a", "b")),
         "without :status"},
        {"bad HPACK", raw::frame(raw::kHeaders, raw::kEndHeaders, 1, "\xff\xff\xff\xff\xff\xff"), "HPACK"},
        {"push", raw::frame(raw::kPushPromise, raw::kEndHeaders, 1, raw::u32(2)), "PUSH_PROMISE"},
        {"huge frame", raw::frame(raw::kData, 0, 1, std::string(20'000, 'x')), "SETTINGS_MAX_FRAME_SIZE"},
        {"window overflow", raw::window_update(0, 0x7fffffff) + raw::window_update(0, 0x7fffffff), "overflowed"},
        {"length mismatch",
         raw::frame(raw::kHeaders, raw::kEndHeaders, 1,
                    raw::literal(":status", "200") + raw::literal("content-length", "9")) +
             raw::frame(raw::kData, raw::kEndStream, 1, "short"),
         "content-length"},
        {"server reset", raw::frame(raw::kRst, 0, 1, raw::u32(2)), "INTERNAL_ERROR"},
        {"continuation alone", raw::frame(raw::kContinuation, raw::kEndHeaders, 1, ""), "CONTINUATION"},
    };
    for (const Bad& k : cases) {
        TestServer server([&](ServerConn& c) {
            std::string buf;
            read_headers(c, buf, 1);
            c.write(raw::frame(raw::kSettings, 0, 0, "") + k.frames);
            c.wait_closed(1000);
        });
        ClientOptions o = h2c_options();
        o.max_retries = 0;
        auto client = make(o);
        Outcome out = fetch(*client, get(server.url("/")));
        EXPECT_FALSE(out.status.is_ok()) << k.name;
        EXPECT_EQ(out.ends, 1) << k.name;
        EXPECT_NE(out.status.message().find(k.says), std::string::npos) << k.name << ": " << out.status.to_string();
    }
}

// Random frames (valid headers, random types, flags, streams and payloads) after the SETTINGS, then a close:
// every call ends exactly once, whatever they say.
TEST_F(ClientTest, Http2RandomServerFramesNeverHangOrCrash) {
    std::mt19937 rng(20261207);
    for (int round = 0; round < 40; ++round) {
        std::string frames = raw::frame(raw::kSettings, 0, 0, "");
        if (round % 2 == 0) frames += ok_head(1, false);
        int n = 1 + static_cast<int>(rng() % 6);
        for (int i = 0; i < n; ++i) {
            std::string payload(rng() % 40, '\0');
            for (char& ch : payload)
                ch = static_cast<char>(rng());
            auto type = static_cast<std::uint8_t>(rng() % 11);
            auto flags = static_cast<std::uint8_t>(rng() % 2 == 0 ? rng() : 0);
            std::uint32_t stream = rng() % 3 == 0 ? 0 : 1 + 2 * (rng() % 3);
            frames += raw::frame(type, flags, stream, payload);
        }
        TestServer server([&](ServerConn& c) {
            std::string buf;
            read_headers(c, buf, 3);
            c.write(frames);
            c.close();
        });
        ClientOptions o = h2c_options();
        o.max_retries = 0;
        auto client = make(o);
        std::vector<Outcome> outs(3);
        ASSERT_TRUE(fetch_all(*client, server.url("/r"), outs)) << round;
        for (auto& out : outs)
            EXPECT_EQ(out.ends, 1) << round;
    }
}

TEST_F(ClientTest, Http2IdleConnectionExpiresAndClosingEndsStreams) {
    H2TestServer server(answer_unless_never("x"));
    ClientOptions o = h2c_options();
    o.idle_connection_ns = 100'000'000;
    auto client = make(o);
    Outcome out = fetch(*client, get(server.url("/")));
    ASSERT_TRUE(out.status.is_ok()) << out.status.to_string();
    ASSERT_TRUE(run_until([&] { return client->stats().open == 0; }));
    EXPECT_EQ(client->stats().expired, 1u);
    Outcome pending;
    start(*client, get(server.url("/never")), pending);
    ASSERT_TRUE(run_until([&] { return server.seen().size() == 2; }));
    client.reset();
    EXPECT_TRUE(pending.status.is_cancelled()) << pending.status.to_string();
    EXPECT_EQ(pending.ends, 1);
}

}  // namespace
}  // namespace slipstream::store::http
