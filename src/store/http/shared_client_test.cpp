// SharedClient: calls from other threads, callbacks on the client's thread, cancel/pause/resume from anywhere,
// closing with calls in flight.
#include "store/http/shared_client.h"

#include <gtest/gtest.h>

#include <chrono>
#include <condition_variable>
#include <future>
#include <mutex>
#include <thread>

#include "store/http/test_server.h"

namespace slipstream::store::http {
namespace {

using testing::ServerConn;
using testing::TestServer;
using namespace std::chrono_literals;

// What one call heard, filled on the client's thread, read from the test's.
struct Heard {
    std::mutex mutex;
    std::condition_variable changed;
    std::string body;
    int status = 0;
    int ends = 0;
    base::Status end;
    bool on_client_thread = true;

    ResponseCallbacks callbacks(SharedClient& client) {
        ResponseCallbacks cb;
        cb.on_head = [this, &client](const ResponseHead& h) {
            std::lock_guard<std::mutex> lock(mutex);
            status = h.status;
            on_client_thread = on_client_thread && client.in_client_thread();
            changed.notify_all();
        };
        cb.on_data = [this, &client](std::string_view d) {
            std::lock_guard<std::mutex> lock(mutex);
            body.append(d);
            on_client_thread = on_client_thread && client.in_client_thread();
            changed.notify_all();
        };
        cb.on_end = [this](base::Status s) {
            std::lock_guard<std::mutex> lock(mutex);
            ++ends;
            end = std::move(s);
            changed.notify_all();
        };
        return cb;
    }
    template <typename Pred>
    bool wait(Pred pred, std::chrono::milliseconds limit = 5s) {
        std::unique_lock<std::mutex> lock(mutex);
        return changed.wait_for(lock, limit, [&] { return pred(*this); });
    }
};

Request get(std::string url) {
    Request r;
    r.url = std::move(url);
    return r;
}

TEST(SharedClient, CallsFromAnyThread) {
    TestServer server([](ServerConn& c) {
        while (!c.read_request().empty())
            c.write("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok");
    });
    auto client = SharedClient::create();
    ASSERT_TRUE(client.is_ok()) << client.status().to_string();
    std::vector<std::unique_ptr<Heard>> heard;
    std::vector<std::thread> threads;
    for (int i = 0; i < 8; ++i)
        heard.push_back(std::make_unique<Heard>());
    for (int i = 0; i < 8; ++i) {
        threads.emplace_back([&, i] { (*client)->start(get(server.url()), heard[i]->callbacks(**client)); });
    }
    for (auto& t : threads)
        t.join();
    for (auto& h : heard) {
        ASSERT_TRUE(h->wait([](Heard& x) { return x.ends == 1; }));
        EXPECT_TRUE(h->end.is_ok()) << h->end.to_string();
        EXPECT_EQ(h->body, "ok");
        EXPECT_TRUE(h->on_client_thread);
    }
    ClientStats s = (*client)->stats();
    EXPECT_EQ(s.active, 0u);
    EXPECT_GE(s.connects, 1u);
    std::promise<base::Result<Response>> got;
    (*client)->fetch(get(server.url()), [&](base::Result<Response> r) { got.set_value(std::move(r)); });
    base::Result<Response> r = got.get_future().get();
    ASSERT_TRUE(r.is_ok());
    EXPECT_EQ(r->body, "ok");
}

TEST(SharedClient, CancelPauseResumeFromAnotherThread) {
    std::atomic<bool> saw_close{false};
    TestServer server([&saw_close](ServerConn& c) {
        std::string req = c.read_request();
        c.write("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n");
        for (int i = 0; i < 200; ++i) {
            if (!c.write("1\r\nx\r\n")) break;
            c.sleep_ms(5);
        }
        if (req.find("/cancel") != std::string::npos) saw_close = c.wait_closed(3000);
        c.write("0\r\n\r\n");
    });
    auto client = SharedClient::create();
    ASSERT_TRUE(client.is_ok());
    Heard a;
    auto call = (*client)->start(get(server.url("/cancel")), a.callbacks(**client));
    ASSERT_TRUE(a.wait([](Heard& x) { return x.body.size() >= 3; }));
    call->cancel();
    ASSERT_TRUE(a.wait([](Heard& x) { return x.ends == 1; }));
    EXPECT_TRUE(a.end.is_cancelled());
    EXPECT_TRUE(call->done());
    call->cancel();
    call->pause();
    std::this_thread::sleep_for(20ms);
    EXPECT_EQ(a.ends, 1);

    Heard b;
    auto held = (*client)->start(get(server.url("/pause")), b.callbacks(**client));
    held->pause();  // may run before the call started: it starts paused then
    std::this_thread::sleep_for(100ms);
    std::size_t size = 0;
    {
        std::lock_guard<std::mutex> lock(b.mutex);
        size = b.body.size();
    }
    std::this_thread::sleep_for(100ms);
    {
        std::lock_guard<std::mutex> lock(b.mutex);
        EXPECT_EQ(b.body.size(), size);
    }
    held->resume();
    ASSERT_TRUE(b.wait([](Heard& x) { return x.ends == 1; }));
    EXPECT_TRUE(b.end.is_ok()) << b.end.to_string();
    EXPECT_EQ(b.body, std::string(200, 'x'));
}

TEST(SharedClient, ClosingEndsCallsInFlight) {
    TestServer server([](ServerConn& c) {
        c.read_request();
        c.wait_closed(3000);
    });
    Heard h;
    std::shared_ptr<SharedCall> call;
    {
        auto client = SharedClient::create();
        ASSERT_TRUE(client.is_ok());
        call = (*client)->start(get(server.url()), h.callbacks(**client));
        std::this_thread::sleep_for(50ms);
    }
    EXPECT_EQ(h.ends, 1);
    EXPECT_TRUE(h.end.is_cancelled()) << h.end.to_string();
    call->cancel();  // the client is gone: nothing
    call->resume();
}

TEST(SharedClient, RefusesABadTlsConfigurationAtCreation) {
    SharedClientOptions o;
    o.client.tls.ca_file = "/nonexistent/ca.pem";
    EXPECT_TRUE(SharedClient::create(o).status().is_invalid_argument());
    SharedClientOptions spdy;
    spdy.client.tls.alpn = {"spdy/3.1"};
    EXPECT_TRUE(SharedClient::create(spdy).status().is_invalid_argument());
}

}  // namespace
}  // namespace slipstream::store::http
