// Client against scripted servers on real sockets: bodies, keep-alive reuse, the connection limit, timeouts,
// retries, limits, malformed responses, cancel, pause/resume, TLS with verification, resolving.
#include "store/http/client.h"

#include <gtest/gtest.h>

#include <chrono>
#include <mutex>
#include <string>

#include "base/clock.h"
#include "net/event_loop.h"
#include "net/tls/test_pki.h"
#include "store/http/client_test_fixture.h"
#include "store/http/test_server.h"

namespace slipstream::store::http {
namespace {

using testing::ServerConn;
using testing::TestServer;
using namespace std::chrono_literals;

TEST_F(ClientTest, ContentLengthBodyAndReuse) {
    TestServer server(echo_server("hello world"));
    auto client = make();
    for (int i = 0; i < 3; ++i) {
        Outcome out = fetch(*client, get(server.url("/x?y=1")));
        ASSERT_TRUE(out.status.is_ok()) << out.status.to_string();
        EXPECT_EQ(out.head->status, 200);
        EXPECT_EQ(out.head->header("content-length"), "11");
        EXPECT_EQ(out.body, "hello world");
        EXPECT_EQ(out.ends, 1);
    }
    EXPECT_EQ(server.connections(), 1);
    ClientStats s = client->stats();
    EXPECT_EQ(s.connects, 1u);
    EXPECT_EQ(s.reused, 2u);
    EXPECT_EQ(s.idle, 1u);
    EXPECT_EQ(s.active, 0u);
}

TEST_F(ClientTest, SendsTheRequestAsAsked) {
    std::mutex mutex;
    std::string seen;
    TestServer server([&](ServerConn& c) {
        std::string req = c.read_request();
        {
            std::lock_guard<std::mutex> lock(mutex);
            seen = std::move(req);
        }
        c.write(ok_response(""));
    });
    auto client = make();
    Request r = get(server.url("/v1/chat/completions"));
    r.method = "POST";
    r.headers = {{"Authorization", "Bearer k"}, {"Content-Type", "application/json"}};
    r.body = "{\"a\":1}";
    Outcome out = fetch(*client, std::move(r));
    ASSERT_TRUE(out.status.is_ok()) << out.status.to_string();
    std::lock_guard<std::mutex> lock(mutex);
    EXPECT_EQ(seen, "POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1:" + std::to_string(server.port()) +
                        "\r\nUser-Agent: slipstream\r\nAuthorization: Bearer k\r\nContent-Type: application/json\r\n"
                        "Content-Length: 7\r\n\r\n{\"a\":1}");
}

TEST_F(ClientTest, ChunkedAndUntilCloseBodies) {
    TestServer server([](ServerConn& c) {
        std::string req = c.read_request();
        if (req.find("/chunked") != std::string::npos) {
            c.write("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhel");
            c.sleep_ms(20);
            c.write("lo\r\n1;ext=1\r\n \r\n6\r\nworld!\r\n0\r\nX-Trailer: t\r\n\r\n");
            req = c.read_request();  // kept alive
            if (req.empty()) return;
        }
        c.write("HTTP/1.1 200 OK\r\n\r\nuntil ");
        c.sleep_ms(20);
        c.write("the end");
    });
    auto client = make();
    Outcome out = fetch(*client, get(server.url("/chunked")));
    ASSERT_TRUE(out.status.is_ok()) << out.status.to_string();
    EXPECT_EQ(out.body, "hello world!");
    EXPECT_GE(out.pieces, 3);
    out = fetch(*client, get(server.url("/close")));
    ASSERT_TRUE(out.status.is_ok()) << out.status.to_string();
    EXPECT_EQ(out.body, "until the end");
    EXPECT_EQ(server.connections(), 1);  // the chunked response kept the connection; until-close ends it
    EXPECT_TRUE(run_until([&] { return client->stats().open == 0; }));
}

TEST_F(ClientTest, InterimHeadsAndHead) {
    TestServer server([](ServerConn& c) {
        c.read_request();
        c.write("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\n" + ok_response("x"));
        c.read_request();
        c.write("HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n");  // HEAD: no body follows
        c.read_request();
        c.write(ok_response("after"));
        c.read_request();
    });
    auto client = make();
    Outcome out = fetch(*client, get(server.url()));
    ASSERT_TRUE(out.status.is_ok()) << out.status.to_string();
    EXPECT_EQ(out.head->status, 200);
    EXPECT_EQ(out.body, "x");
    Request head = get(server.url());
    head.method = "HEAD";
    out = fetch(*client, std::move(head));
    ASSERT_TRUE(out.status.is_ok());
    EXPECT_EQ(out.body, "");
    out = fetch(*client, get(server.url()));
    EXPECT_EQ(out.body, "after");
    EXPECT_EQ(server.connections(), 1);
}

TEST_F(ClientTest, ConnectionLimitQueuesCalls) {
    TestServer server([](ServerConn& c) {
        while (!c.read_request().empty()) {
            c.sleep_ms(30);
            if (!c.write(ok_response("ok"))) return;
        }
    });
    ClientOptions o;
    o.max_connections_per_origin = 2;
    auto client = make(o);
    std::vector<Outcome> outs(7);
    for (auto& out : outs)
        start(*client, get(server.url()), out);
    EXPECT_EQ(client->stats().waiting, 7u);  // nothing happens inside start()
    ASSERT_TRUE(run_until([&] {
        for (auto& o : outs)
            if (!o.ended) return false;
        return true;
    }));
    for (auto& out : outs)
        EXPECT_TRUE(out.status.is_ok()) << out.status.to_string();
    EXPECT_LE(server.max_concurrent(), 2);
    EXPECT_EQ(server.connections(), 2);
}

TEST_F(ClientTest, QueueLimitAndQueueTimeout) {
    TestServer server([](ServerConn& c) {
        c.read_request();
        c.sleep_ms(400);
        c.write(ok_response("late"));
    });
    ClientOptions o;
    o.max_connections_per_origin = 1;
    o.max_waiting_per_origin = 2;
    o.queue_timeout_ns = 100'000'000;
    auto client = make(o);
    Outcome a, b, c;
    start(*client, get(server.url()), a);
    start(*client, get(server.url()), b);
    start(*client, get(server.url()), c);  // the third waiter: refused
    ASSERT_TRUE(run_until([&] { return c.ended; }));
    EXPECT_TRUE(c.status.is_resource_exhausted()) << c.status.to_string();
    ASSERT_TRUE(run_until([&] { return b.ended; }));
    EXPECT_TRUE(b.status.is_timeout()) << b.status.to_string();
    EXPECT_NE(b.status.message().find("queue timeout"), std::string::npos);
    ASSERT_TRUE(run_until([&] { return a.ended; }));
    EXPECT_TRUE(a.status.is_ok());
}

TEST_F(ClientTest, Timeouts) {
    TestServer server([](ServerConn& c) {
        std::string req = c.read_request();
        if (req.find("/silent") != std::string::npos) {
            c.wait_closed(3000);
        } else if (req.find("/stall") != std::string::npos) {
            c.write("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n");
            c.wait_closed(3000);
        } else {
            for (int i = 0; i < 100; ++i) {  // /trickle: a byte every 20 ms, never idle, never done
                if (i == 0) c.write("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n");
                if (!c.write("1\r\nx\r\n")) return;
                c.sleep_ms(20);
            }
        }
    });
    auto client = make();
    Request r = get(server.url("/silent"));
    r.timeouts.first_byte_ns = 100'000'000;
    Outcome out = fetch(*client, std::move(r));
    EXPECT_TRUE(out.status.is_timeout()) << out.status.to_string();
    EXPECT_NE(out.status.message().find("first-byte timeout"), std::string::npos) << out.status.message();
    EXPECT_FALSE(out.head.has_value());

    r = get(server.url("/stall"));
    r.timeouts.idle_ns = 100'000'000;
    out = fetch(*client, std::move(r));
    EXPECT_TRUE(out.status.is_timeout());
    EXPECT_NE(out.status.message().find("idle timeout"), std::string::npos) << out.status.message();
    EXPECT_EQ(out.body, "abc");

    r = get(server.url("/trickle"));
    r.timeouts.idle_ns = 200'000'000;
    r.timeouts.total_ns = 250'000'000;
    auto t0 = std::chrono::steady_clock::now();
    out = fetch(*client, std::move(r));
    EXPECT_TRUE(out.status.is_timeout());
    EXPECT_NE(out.status.message().find("total timeout"), std::string::npos) << out.status.message();
    EXPECT_LT(std::chrono::steady_clock::now() - t0, 2s);
    EXPECT_GT(out.body.size(), 3u);
    EXPECT_EQ(out.ends, 1);
}

TEST_F(ClientTest, ConnectTimeoutCoversTheTlsHandshake) {
    // A TCP server that never speaks TLS: the handshake stalls.
    TestServer server([](ServerConn& c) { c.wait_closed(3000); });
    ClientOptions o;
    o.connect_timeout_ns = 100'000'000;
    o.tls.ca_file = pki().ca_cert;
    auto client = make(o);
    Outcome out = fetch(*client, get("https://127.0.0.1:" + std::to_string(server.port()) + "/"));
    EXPECT_TRUE(out.status.is_timeout()) << out.status.to_string();
    EXPECT_NE(out.status.message().find("connect timeout"), std::string::npos) << out.status.message();
}

TEST_F(ClientTest, RetriesIdempotentRequestsOnly) {
    std::atomic<int> requests{0};
    // The first connection takes the request and closes without a word; later ones answer.
    TestServer server([&requests](ServerConn& c) {
        while (!c.read_request().empty()) {
            if (requests++ == 0) {
                c.close();
                return;
            }
            c.write(ok_response("second"));
        }
    });
    auto client = make();
    std::shared_ptr<Call> call;
    Outcome out;
    call = start(*client, get(server.url()), out);
    ASSERT_TRUE(run_until([&] { return out.ended; }));
    ASSERT_TRUE(out.status.is_ok()) << out.status.to_string();
    EXPECT_EQ(out.body, "second");
    EXPECT_EQ(call->attempts(), 2);
    EXPECT_EQ(client->stats().retries, 1u);

    requests = 0;
    Request post = get(server.url());
    post.method = "POST";
    post.body = "x";
    auto client2 = make();
    out = fetch(*client2, std::move(post));
    EXPECT_TRUE(out.status.is_unavailable()) << out.status.to_string();
    EXPECT_NE(out.status.message().find("before responding"), std::string::npos) << out.status.message();
    EXPECT_EQ(client2->stats().retries, 0u);

    // An Idempotency-Key makes a POST safe to repeat.
    requests = 0;
    post = get(server.url());
    post.method = "POST";
    post.headers = {{"Idempotency-Key", "k1"}};
    out = fetch(*client2, std::move(post));
    EXPECT_TRUE(out.status.is_ok()) << out.status.to_string();
}

TEST_F(ClientTest, RefusedConnectionsRetryWithBackoffThenFail) {
    std::uint16_t port;
    {
        TestServer gone(echo_server());
        port = gone.port();
    }
    ClientOptions o;
    o.max_retries = 2;
    o.retry_backoff_ns = 10'000'000;
    auto client = make(o);
    Outcome out;
    auto t0 = std::chrono::steady_clock::now();
    auto call = start(*client, get("http://127.0.0.1:" + std::to_string(port) + "/"), out);
    ASSERT_TRUE(run_until([&] { return out.ended; }));
    EXPECT_TRUE(out.status.is_unavailable()) << out.status.to_string();
    EXPECT_NE(out.status.message().find("refused"), std::string::npos) << out.status.message();
    EXPECT_EQ(client->stats().retries, 2u);
    EXPECT_GE(std::chrono::steady_clock::now() - t0, 30ms);  // 10 + 20 ms of backoff
    EXPECT_EQ(out.ends, 1);
}

TEST_F(ClientTest, StaleKeptAliveConnectionIsNotUsed) {
    // Answers one request per connection, then closes it shortly after (as a server's keep-alive timeout does).
    TestServer server([](ServerConn& c) {
        if (c.read_request().empty()) return;
        c.write(ok_response("one"));
        c.sleep_ms(30);
        c.close();
    });
    auto client = make();
    Outcome out = fetch(*client, get(server.url()));
    ASSERT_TRUE(out.status.is_ok());
    run_for(100ms);
    Request post = get(server.url());
    post.method = "POST";  // not retryable: it must not meet the dead connection
    out = fetch(*client, std::move(post));
    ASSERT_TRUE(out.status.is_ok()) << out.status.to_string();
    EXPECT_EQ(server.connections(), 2);
    EXPECT_GE(client->stats().expired, 1u);
}

TEST_F(ClientTest, IdleConnectionsExpire) {
    TestServer server(echo_server());
    ClientOptions o;
    o.idle_connection_ns = 50'000'000;
    auto client = make(o);
    Outcome out = fetch(*client, get(server.url()));
    ASSERT_TRUE(out.status.is_ok());
    EXPECT_EQ(client->stats().idle, 1u);
    ASSERT_TRUE(run_until([&] { return client->stats().open == 0; }));
    EXPECT_EQ(client->stats().expired, 1u);
    EXPECT_TRUE(run_until([&] { return server.open() == 0; }));
}

TEST_F(ClientTest, Limits) {
    TestServer server([](ServerConn& c) {
        std::string req = c.read_request();
        if (req.find("/bighead") != std::string::npos) {
            c.write("HTTP/1.1 200 OK\r\nX-Big: " + std::string(2000, 'a') + "\r\nContent-Length: 0\r\n\r\n");
        } else if (req.find("/length") != std::string::npos) {
            c.write("HTTP/1.1 200 OK\r\nContent-Length: 5000\r\n\r\n");
        } else if (req.find("/chunks") != std::string::npos) {
            c.write("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n");
            for (int i = 0; i < 20; ++i)
                c.write("100\r\n" + std::string(256, 'z') + "\r\n");
        } else {
            c.write("HTTP/1.1 200 OK\r\n\r\n" + std::string(5000, 'u'));
        }
        c.wait_closed(2000);
    });
    ClientOptions o;
    o.head_limits.max_head_bytes = 1024;
    o.max_body_bytes = 1000;
    auto client = make(o);
    Outcome out = fetch(*client, get(server.url("/bighead")));
    EXPECT_TRUE(out.status.is_invalid_argument()) << out.status.to_string();
    EXPECT_NE(out.status.message().find("response head too large"), std::string::npos);
    out = fetch(*client, get(server.url("/length")));
    EXPECT_TRUE(out.status.is_out_of_range()) << out.status.to_string();
    EXPECT_FALSE(out.head.has_value());
    out = fetch(*client, get(server.url("/chunks")));
    EXPECT_TRUE(out.status.is_out_of_range()) << out.status.to_string();
    EXPECT_LE(out.body.size(), 1000u);
    out = fetch(*client, get(server.url("/close")));
    EXPECT_TRUE(out.status.is_out_of_range()) << out.status.to_string();
    EXPECT_LE(out.body.size(), 1000u);
}

TEST_F(ClientTest, MalformedResponses) {
    const std::vector<std::pair<std::string, std::string>> cases = {
        {"HTTP/1.1 2000 OK\r\n\r\n", "invalid status code"},
        {"HTTP/2 200 OK\r\n\r\n", "unsupported HTTP version"},
        {"SSH-2.0-OpenSSH_9.0\r\n", "malformed status line"},
        {"HTTP/1.1 200 OK\nContent-Length: 0\n\n", "invalid line ending"},
        {"HTTP/1.1 200 OK\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n", "invalid Content-Length"},
        {"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", "invalid chunk size"},
        {"HTTP/1.1 101 Switching Protocols\r\n\r\n", "switched protocols"},
    };
    for (const auto& [wire, why] : cases) {
        SCOPED_TRACE(wire);
        TestServer server([wire = wire](ServerConn& c) {
            c.read_request();
            c.write(wire);
            c.wait_closed(2000);
        });
        auto client = make();
        Outcome out = fetch(*client, get(server.url()));
        EXPECT_TRUE(out.status.is_invalid_argument()) << out.status.to_string();
        EXPECT_NE(out.status.message().find(why), std::string::npos) << out.status.message();
        EXPECT_EQ(client->stats().retries, 0u);
    }
}

TEST_F(ClientTest, TruncatedBodies) {
    TestServer server([](ServerConn& c) {
        std::string req = c.read_request();
        if (req.find("/length") != std::string::npos) {
            c.write("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc");
        } else if (req.find("/reset") != std::string::npos) {
            c.write("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n");
            c.sleep_ms(20);
            c.reset();
            return;
        } else {
            c.write("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n");
        }
        c.close();
    });
    auto client = make();
    Outcome out = fetch(*client, get(server.url("/length")));
    EXPECT_TRUE(out.status.is_unavailable()) << out.status.to_string();
    EXPECT_NE(out.status.message().find("truncated after 3 bytes of 10"), std::string::npos) << out.status.message();
    EXPECT_EQ(out.body, "abc");
    out = fetch(*client, get(server.url("/chunked")));
    EXPECT_TRUE(out.status.is_unavailable());
    EXPECT_EQ(out.body, "abc");
    out = fetch(*client, get(server.url("/reset")));
    EXPECT_TRUE(out.status.is_unavailable()) << out.status.to_string();
    EXPECT_EQ(out.body, "abc");
    EXPECT_EQ(client->stats().retries, 0u);  // bytes of the response had arrived: never retried
}

TEST_F(ClientTest, CancelClosesTheConnection) {
    std::atomic<bool> saw_close{false};
    TestServer server([&saw_close](ServerConn& c) {
        c.read_request();
        c.write("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nfirst\r\n");
        saw_close = c.wait_closed(3000);
    });
    auto client = make();
    Outcome out;
    std::shared_ptr<Call> call;
    ResponseCallbacks cb;
    cb.on_data = [&](std::string_view d) {
        out.body.append(d);
        call->cancel();  // from inside on_data
        EXPECT_TRUE(out.ended);
        call->cancel();  // again: nothing
    };
    cb.on_end = [&](base::Status s) {
        ++out.ends;
        out.ended = true;
        out.status = s;
    };
    call = client->start(get(server.url()), cb);
    ASSERT_TRUE(run_until([&] { return out.ended; }));
    EXPECT_TRUE(out.status.is_cancelled());
    EXPECT_EQ(out.body, "first");
    run_for(50ms);
    EXPECT_EQ(out.ends, 1);
    EXPECT_TRUE(run_until([&] { return saw_close.load(); }));
    EXPECT_EQ(client->stats().open, 0u);

    // Cancelled while waiting for a connection: at once, and no connection is made for it.
    ClientOptions o;
    o.max_connections_per_origin = 1;
    auto c2 = make(o);
    Outcome first, second;
    start(*c2, get(server.url()), first);
    auto waiting = start(*c2, get(server.url()), second);
    waiting->cancel();
    EXPECT_TRUE(second.ended);
    EXPECT_TRUE(second.status.is_cancelled());
    EXPECT_EQ(c2->stats().waiting, 1u);
}

TEST_F(ClientTest, PauseHoldsDataBackAndResumeDeliversAllOfIt) {
    std::string payload;
    for (int i = 0; i < 200'000; ++i)
        payload += static_cast<char>('a' + i % 26);
    TestServer server([&payload](ServerConn& c) {
        c.read_request();
        c.write("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n");
        for (std::size_t i = 0; i < payload.size(); i += 1000) {
            char size[16];
            std::snprintf(size, sizeof size, "%zx\r\n", std::min<std::size_t>(1000, payload.size() - i));
            if (!c.write(size + payload.substr(i, 1000) + "\r\n")) return;
        }
        c.write("0\r\n\r\n");
        c.read_request(2000);
    });
    auto client = make();
    Outcome out;
    std::shared_ptr<Call> call;
    ResponseCallbacks cb;
    cb.on_data = [&](std::string_view d) {
        out.body.append(d);
        if (out.body.size() >= 1000 && out.pieces++ == 0) call->pause();
        EXPECT_FALSE(call->paused() && out.pieces > 1);
    };
    cb.on_end = [&](base::Status s) {
        out.ended = true;
        out.status = s;
    };
    Request r = get(server.url());
    r.timeouts.idle_ns = 50'000'000;  // must not fire while paused
    call = client->start(std::move(r), cb);
    ASSERT_TRUE(run_until([&] { return call->paused(); }));
    std::size_t held = out.body.size();
    run_for(200ms);
    EXPECT_EQ(out.body.size(), held);
    EXPECT_FALSE(out.ended);
    call->resume();
    EXPECT_EQ(out.body.size(), held);  // not from inside resume()
    ASSERT_TRUE(run_until([&] { return out.ended; }));
    ASSERT_TRUE(out.status.is_ok()) << out.status.to_string();
    EXPECT_EQ(out.body, payload);
}

TEST_F(ClientTest, Tls) {
    TestServer server(echo_server("secure"), pki().server_cert, pki().server_key);
    ClientOptions o;
    o.tls.ca_file = pki().ca_cert;
    auto client = make(o);
    for (int i = 0; i < 2; ++i) {
        Outcome out = fetch(*client, get(server.url()));
        ASSERT_TRUE(out.status.is_ok()) << out.status.to_string();
        EXPECT_EQ(out.body, "secure");
    }
    EXPECT_EQ(server.connections(), 1);
    // localhost (the certificate's name) through the resolver.
    WorkerPool resolver(WorkerPoolOptions{.threads = 1, .max_queue = 16, .name = "ss-dns-test"});
    {
        auto named = make(o, &resolver);
        Outcome out = fetch(*named, get("https://localhost:" + std::to_string(server.port()) + "/"));
        ASSERT_TRUE(out.status.is_ok()) << out.status.to_string();
    }
    // The system store does not know the test CA; a name the certificate lacks.
    auto system = make();
    Outcome out = fetch(*system, get(server.url()));
    EXPECT_TRUE(out.status.is_invalid_argument()) << out.status.to_string();
    EXPECT_NE(out.status.message().find("certificate"), std::string::npos) << out.status.message();
    net::tls::TestPki other = net::tls::make_test_pki(::testing::TempDir() + "/store_http_other_pki", "other.example");
    TestServer wrong(echo_server(), other.server_cert, other.server_key);
    ClientOptions o2;
    o2.tls.ca_file = other.ca_cert;
    auto c2 = make(o2, &resolver);
    out = fetch(*c2, get("https://localhost:" + std::to_string(wrong.port()) + "/"));
    EXPECT_TRUE(out.status.is_invalid_argument()) << out.status.to_string();
    EXPECT_NE(out.status.message().find("hostname mismatch"), std::string::npos) << out.status.message();
    // Verification off: accepted.
    ClientOptions off;
    off.tls.verify = false;
    auto c3 = make(off);
    out = fetch(*c3, get(server.url()));
    EXPECT_TRUE(out.status.is_ok()) << out.status.to_string();
}

TEST_F(ClientTest, Resolving) {
    TestServer server(echo_server("named"));
    WorkerPool resolver(WorkerPoolOptions{.threads = 1, .max_queue = 16, .name = "ss-dns-test"});
    auto client = make({}, &resolver);
    Outcome out = fetch(*client, get("http://localhost:" + std::to_string(server.port()) + "/"));
    ASSERT_TRUE(out.status.is_ok()) << out.status.to_string();
    EXPECT_EQ(out.body, "named");
    out = fetch(*client, get("http://no-such-host.invalid/"));
    EXPECT_TRUE(out.status.is_not_found()) << out.status.to_string();
    EXPECT_EQ(client->stats().retries, 0u);
    EXPECT_NE(out.status.message().find("cannot resolve"), std::string::npos) << out.status.message();
    auto no_resolver = make();
    out = fetch(*no_resolver, get("http://example.invalid/"));
    EXPECT_TRUE(out.status.is_invalid_argument()) << out.status.to_string();
    // localhost needs no resolver.
    out = fetch(*no_resolver, get("http://localhost:" + std::to_string(server.port()) + "/"));
    EXPECT_TRUE(out.status.is_ok()) << out.status.to_string();
}

TEST_F(ClientTest, RefusedRequests) {
    auto client = make();
    Request bad = get("http://127.0.0.1:1/");
    bad.headers = {{"X-A", "b\r\nX-Injected: 1"}};
    Outcome out;
    start(*client, bad, out);
    EXPECT_FALSE(out.ended);  // never from inside start()
    ASSERT_TRUE(run_until([&] { return out.ended; }));
    EXPECT_TRUE(out.status.is_invalid_argument());
    for (const char* reserved : {"Host", "content-length", "Connection", "Transfer-Encoding"}) {
        Request r = get("http://127.0.0.1:1/");
        r.headers = {{reserved, "x"}};
        EXPECT_TRUE(fetch(*client, r).status.is_invalid_argument()) << reserved;
    }
    Request m = get("http://127.0.0.1:1/");
    m.method = "GE T";
    EXPECT_TRUE(fetch(*client, m).status.is_invalid_argument());
    EXPECT_TRUE(fetch(*client, get("ftp://x/")).status.is_invalid_argument());
}

TEST_F(ClientTest, FetchAndClosingTheClient) {
    TestServer server([](ServerConn& c) {
        std::string req = c.read_request();
        if (req.find("/hang") != std::string::npos) {
            c.wait_closed(3000);
            return;
        }
        c.write(ok_response("whole"));
        c.read_request();
    });
    auto client = make();
    std::optional<base::Result<Response>> got;
    client->fetch(get(server.url()), [&](base::Result<Response> r) { got = std::move(r); });
    ASSERT_TRUE(run_until([&] { return got.has_value(); }));
    ASSERT_TRUE(got->is_ok());
    EXPECT_EQ((*got)->body, "whole");
    EXPECT_EQ((*got)->head.status, 200);
    Outcome hanging;
    auto call = start(*client, get(server.url("/hang")), hanging);
    run_for(50ms);
    client.reset();
    EXPECT_TRUE(hanging.ended);
    EXPECT_TRUE(hanging.status.is_cancelled());
    call->cancel();  // the client is gone: nothing
    EXPECT_EQ(hanging.ends, 1);
}

}  // namespace
}  // namespace slipstream::store::http
