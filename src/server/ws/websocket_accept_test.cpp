// WebSocket manual accept end to end: the handler chooses the subprotocol and headers, or refuses over HTTP.
#include <gtest/gtest.h>

#include <future>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "server/ws/websocket_test_client.h"
#include "slipstream/app.h"

namespace slipstream {
namespace {

using ws_testing::Client;
using ws_testing::client_frame;
using ws_testing::test_options;
namespace ws = http::ws;

using Frame = std::pair<int, std::string>;

// A manual-accept echo route whose on_open hands the pending handle to the test, and whose on_close
// reports the code.
struct ManualRoute {
    std::promise<WebSocket> opened;
    std::promise<std::pair<std::uint16_t, std::string>> closed;

    WebSocketHandler handler() {
        WebSocketHandler h;
        h.manual_accept = true;
        h.on_open = [this](WebSocket& s) { opened.set_value(s); };
        h.on_message = [](WebSocket& s, std::string_view d, bool text) {
            if (text) s.send_text(std::string(s.subprotocol()) + ":" + std::string(d));
        };
        h.on_close = [this](WebSocket&, std::uint16_t code, std::string_view reason) {
            closed.set_value({code, std::string(reason)});
        };
        return h;
    }
};

class ManualAccept : public ::testing::Test {
  protected:
    void start(ServerOptions o = test_options()) {
        app_ = std::make_unique<App>(o);
        app_->websocket("/ws", route_.handler()).listen("127.0.0.1", 0);
        app_->start();
    }
    void TearDown() override {
        if (app_) {
            app_->stop();
            app_->wait();
        }
    }
    // Connects on a thread (the answer waits for the handler); returns the pending handle and the client.
    std::pair<WebSocket, std::future<std::unique_ptr<Client>>> connect(const std::string& extra = "",
                                                                       const std::string& early = "") {
        std::uint16_t port = app_->port();
        auto client = std::async(std::launch::async,
                                 [port, extra, early] { return std::make_unique<Client>(port, "/ws", extra, early); });
        return {route_.opened.get_future().get(), std::move(client)};
    }

    ManualRoute route_;
    std::unique_ptr<App> app_;
};

TEST_F(ManualAccept, ChosenSubprotocolAndHeadersFromAnotherThread) {
    start();
    auto [handle, pending] = connect("Sec-WebSocket-Protocol: chat, superchat\r\n");
    EXPECT_EQ(handle.offered_subprotocols(), (std::vector<std::string>{"chat", "superchat"}));
    EXPECT_FALSE(handle.is_accepted());
    EXPECT_EQ(handle.send_text("too early"), SendStatus::kClosed);
    bool accepted = false;
    std::thread([&, h = handle]() mutable { accepted = h.accept("superchat", {{"X-Room", "blue"}}); }).join();
    EXPECT_TRUE(accepted);
    EXPECT_TRUE(handle.is_accepted());
    EXPECT_FALSE(handle.accept("chat"));  // answered already
    std::unique_ptr<Client> c = pending.get();
    EXPECT_EQ(c->head().rfind("HTTP/1.1 101 Switching Protocols\r\n", 0), 0u) << c->head();
    EXPECT_NE(c->head().find("\r\nSec-WebSocket-Protocol: superchat\r\n"), std::string::npos) << c->head();
    EXPECT_NE(c->head().find("\r\nX-Room: blue\r\n"), std::string::npos) << c->head();
    c->send_frame(ws::Opcode::kText, "hi");
    EXPECT_EQ(c->read_frame(), (Frame{0x1, "superchat:hi"}));
}

TEST_F(ManualAccept, InvalidArgumentsChangeNothing) {
    start();
    auto [handle, pending] = connect("Sec-WebSocket-Protocol: chat\r\n");
    struct Case {
        std::string subprotocol;
        std::vector<std::pair<std::string, std::string>> headers;
    };
    const Case refused[] = {
        {"other", {}},                          // not offered
        {"Chat", {}},                           // case-sensitive
        {"", {{"Sec-WebSocket-Accept", "x"}}},  // the engine's field
        {"", {{"X-Bad", "a\r\nInjected: 1"}}},
        {"", {{"bad name", "v"}}},
    };
    for (const Case& c : refused)
        EXPECT_FALSE(handle.accept(c.subprotocol, c.headers)) << c.subprotocol;
    EXPECT_FALSE(handle.is_accepted());
    EXPECT_TRUE(handle.accept());  // no subprotocol
    std::unique_ptr<Client> c = pending.get();
    EXPECT_EQ(c->head().rfind("HTTP/1.1 101", 0), 0u) << c->head();
    EXPECT_EQ(c->head().find("Sec-WebSocket-Protocol"), std::string::npos) << c->head();
}

TEST_F(ManualAccept, FramesSentBeforeTheAnswerAreHeldUntilAccept) {
    start();
    auto [handle, pending] = connect("Sec-WebSocket-Protocol: p\r\n", client_frame(ws::Opcode::kText, "early"));
    EXPECT_TRUE(handle.accept("p"));
    std::unique_ptr<Client> c = pending.get();
    EXPECT_EQ(c->read_frame(), (Frame{0x1, "p:early"}));
}

TEST_F(ManualAccept, CloseBeforeAcceptAnswers403AndReportsItsCode) {
    start();
    auto [handle, pending] = connect();
    EXPECT_TRUE(handle.close(1008, "policy"));
    EXPECT_FALSE(handle.accept());
    std::unique_ptr<Client> c = pending.get();
    EXPECT_EQ(c->head().rfind("HTTP/1.1 403 ", 0), 0u) << c->head();
    EXPECT_NE(c->head().find("\r\nConnection: close\r\n"), std::string::npos) << c->head();
    EXPECT_EQ(route_.closed.get_future().get(), (std::pair<std::uint16_t, std::string>{1008, "policy"}));
    EXPECT_TRUE(c->closed_by_server());
}

TEST_F(ManualAccept, RejectSendsTheResponse) {
    start();
    auto [handle, pending] = connect();
    EXPECT_TRUE(handle.reject(Response::text("who are you", 401)));
    EXPECT_FALSE(handle.reject(Response(403)));
    std::unique_ptr<Client> c = pending.get();
    EXPECT_EQ(c->head().rfind("HTTP/1.1 401 ", 0), 0u) << c->head();
    EXPECT_EQ(route_.closed.get_future().get().first, 1006);
}

TEST_F(ManualAccept, UnansweredHandshakeTimesOutWith504) {
    ServerOptions o = test_options();
    o.handler_timeout_ms = 30;
    start(o);
    auto [handle, pending] = connect();
    std::unique_ptr<Client> c = pending.get();
    EXPECT_EQ(c->head().rfind("HTTP/1.1 504 ", 0), 0u) << c->head();
    EXPECT_EQ(route_.closed.get_future().get().first, 1006);
    EXPECT_FALSE(handle.accept());
}

TEST_F(ManualAccept, ClientLeavingWhilePendingReports1006) {
    start();
    int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(app_->port());
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ASSERT_EQ(::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a), 0);
    std::string request =
        "GET /ws HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n";
    ASSERT_EQ(::write(fd, request.data(), request.size()), static_cast<ssize_t>(request.size()));
    WebSocket handle = route_.opened.get_future().get();
    ::close(fd);
    EXPECT_EQ(route_.closed.get_future().get().first, 1006);
    EXPECT_FALSE(handle.accept());
    EXPECT_FALSE(handle.is_open());
}

}  // namespace
}  // namespace slipstream
