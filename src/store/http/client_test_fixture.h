// ClientTest (tests only): the fixture of the client's tests: a loop on the test's thread, calls whose callbacks are
// recorded (Outcome), the test PKI, and canned HTTP/1.1 answers.
#pragma once

#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "base/clock.h"
#include "net/event_loop.h"
#include "net/tls/test_pki.h"
#include "store/http/client.h"
#include "store/http/test_server.h"

namespace slipstream::store::http {

inline const net::tls::TestPki& pki() {
    static const net::tls::TestPki p = net::tls::make_test_pki(::testing::TempDir() + "/store_http_test_pki");
    return p;
}

inline std::string ok_response(std::string_view body, std::string_view extra = {}) {
    return "HTTP/1.1 200 OK\r\nContent-Length: " + std::to_string(body.size()) + "\r\n" + std::string(extra) + "\r\n" +
           std::string(body);
}

// Answers every request on the connection with `body`.
inline testing::TestServer::Handler echo_server(std::string body = "hello") {
    return [body](testing::ServerConn& c) {
        while (!c.read_request().empty()) {
            if (!c.write(ok_response(body))) return;
        }
    };
}

struct Outcome {
    bool ended = false;
    int ends = 0;
    base::Status status;
    std::optional<ResponseHead> head;
    std::string body;
    int pieces = 0;
};

class ClientTest : public ::testing::Test {
  protected:
    ClientTest() : loop_(clock_) { loop_.attach_to_current_thread(); }

    std::unique_ptr<Client> make(ClientOptions o = {}, WorkerPool* resolver = nullptr) {
        return std::make_unique<Client>(loop_, std::move(o), resolver);
    }
    // Starts `r` and records what the callbacks say.
    std::shared_ptr<Call> start(Client& c, Request r, Outcome& out) { return c.start(std::move(r), record(out)); }
    // start(), and the call pauses itself as its head arrives.
    std::shared_ptr<Call> start_paused(Client& c, Request r, Outcome& out) {
        auto self = std::make_shared<std::weak_ptr<Call>>();
        ResponseCallbacks cb = record(out);
        cb.on_head = [&out, self](const ResponseHead& h) {
            out.head = h;
            if (std::shared_ptr<Call> call = self->lock()) call->pause();
        };
        std::shared_ptr<Call> call = c.start(std::move(r), std::move(cb));
        *self = call;
        return call;
    }
    // Callbacks that record into `out` (a test replaces the ones it needs).
    static ResponseCallbacks record(Outcome& out) {
        ResponseCallbacks cb;
        cb.on_head = [&out](const ResponseHead& h) {
            EXPECT_FALSE(out.head.has_value());
            out.head = h;
        };
        cb.on_data = [&out](std::string_view d) {
            EXPECT_TRUE(out.head.has_value());
            out.body.append(d);
            ++out.pieces;
        };
        cb.on_end = [&out](base::Status s) {
            ++out.ends;
            out.ended = true;
            out.status = std::move(s);
        };
        return cb;
    }
    Request get(std::string url) {
        Request r;
        r.url = std::move(url);
        return r;
    }
    // Runs the loop until `done()` or `limit` passed.
    template <typename Pred>
    bool run_until(Pred done, std::chrono::milliseconds limit = std::chrono::seconds(5)) {
        auto until = std::chrono::steady_clock::now() + limit;
        while (!done()) {
            if (std::chrono::steady_clock::now() > until) return false;
            loop_.run_once(5);
        }
        return true;
    }
    void run_for(std::chrono::milliseconds d) {
        auto until = std::chrono::steady_clock::now() + d;
        while (std::chrono::steady_clock::now() < until)
            loop_.run_once(5);
    }
    // Starts one GET of `url` per outcome and runs the loop until every one ended; false when `limit` passed first.
    bool fetch_all(Client& c, const std::string& url, std::vector<Outcome>& outs,
                   std::chrono::milliseconds limit = std::chrono::seconds(5)) {
        for (auto& out : outs)
            start(c, get(url), out);
        return run_until(
            [&] {
                for (auto& out : outs)
                    if (!out.ended) return false;
                return true;
            },
            limit);
    }
    Outcome fetch(Client& c, Request r) {
        Outcome out;
        start(c, std::move(r), out);
        EXPECT_TRUE(run_until([&] { return out.ended; }));
        return out;
    }

    base::SystemClock clock_;
    net::EventLoop loop_;
};

}  // namespace slipstream::store::http
