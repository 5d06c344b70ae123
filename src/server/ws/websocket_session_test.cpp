// WebSocket routes end to end in-process: App on port 0, a blocking socket client, server pings, drain, refusals.
#include <gtest/gtest.h>

#include <atomic>
#include <future>
#include <string>
#include <thread>

#include "server/ws/websocket_test_client.h"
#include "slipstream/app.h"

namespace slipstream {
namespace {

using ws_testing::Client;
using ws_testing::close_payload;
using ws_testing::test_options;
namespace ws = http::ws;

TEST(WebSocketServer, ServerPingsAndDropsAClientThatNeverAnswers) {
    ServerOptions o = test_options();
    o.ws_ping_interval_ms = 50;
    o.ws_pong_timeout_ms = 100;
    std::promise<std::uint16_t> closed;
    WebSocketHandler h;
    h.on_close = [&](WebSocket&, std::uint16_t code, std::string_view) { closed.set_value(code); };
    App app(o);
    app.websocket("/ws", std::move(h)).listen("127.0.0.1", 0);
    app.start();
    {
        Client c(app.port());
        ASSERT_NE(c.head().find("101 Switching Protocols"), std::string::npos) << c.head();
        auto [op, payload] = c.read_frame();
        EXPECT_EQ(op, 0x9);                   // a ping, after the silence
        EXPECT_EQ(c.read_frame().first, -1);  // no pong: dropped
        EXPECT_EQ(closed.get_future().get(), 1006);
    }
    app.stop();
    app.wait();
}

TEST(WebSocketServer, PongKeepsTheConnection) {
    ServerOptions o = test_options();
    o.ws_ping_interval_ms = 30;
    o.ws_pong_timeout_ms = 200;
    App app(o);
    WebSocketHandler h;
    h.on_message = [](WebSocket& s, std::string_view d, bool) { s.send_text(d); };
    app.websocket("/ws", std::move(h)).listen("127.0.0.1", 0);
    app.start();
    {
        Client c(app.port());
        for (int i = 0; i < 3; ++i) {
            auto [op, payload] = c.read_frame();
            ASSERT_EQ(op, 0x9);
            c.send_frame(ws::Opcode::kPong, payload);
        }
        c.send_frame(ws::Opcode::kText, "alive");
        std::pair<int, std::string> f;
        do {
            f = c.read_frame();
        } while (f.first == 0x9);
        EXPECT_EQ(f, (std::pair<int, std::string>{0x1, "alive"}));
    }
    app.stop();
    app.wait();
}

TEST(WebSocketServer, SendFromAnotherThreadAndCloseOnDrain) {
    App app(test_options());
    std::promise<WebSocket> opened;
    WebSocketHandler h;
    h.on_open = [&](WebSocket& s) { opened.set_value(s); };
    app.websocket("/rooms/{room}", std::move(h)).listen("127.0.0.1", 0);
    app.start();
    Client c(app.port(), "/rooms/blue");
    WebSocket handle = opened.get_future().get();
    EXPECT_EQ(handle.request().path_param("room"), "blue");
    std::thread([handle]() mutable { EXPECT_EQ(handle.send_text("from a thread"), SendStatus::kOk); }).join();
    EXPECT_EQ(c.read_frame(), (std::pair<int, std::string>{0x1, "from a thread"}));
    app.stop();  // drain: 1001, then the server waits for the client's close
    auto [op, payload] = c.read_frame();
    EXPECT_EQ(op, 0x8);
    EXPECT_EQ(payload.substr(0, 2), close_payload(1001));
    c.send_frame(ws::Opcode::kClose, close_payload(1001));
    EXPECT_TRUE(c.closed_by_server());
    app.wait();
    EXPECT_EQ(handle.send_text("late"), SendStatus::kClosed);
}

TEST(WebSocketServer, UpgradeRefusedAndSubprotocolChosen) {
    App app(test_options());
    WebSocketHandler h;
    h.on_upgrade = [](Request& r) -> std::optional<Response> {
        if (r.query("token") != "ok") return Response::text("no", 403);
        return std::nullopt;
    };
    h.subprotocols = {"v2", "v1"};
    app.websocket("/ws", std::move(h)).listen("127.0.0.1", 0);
    app.start();
    {
        Client refused(app.port(), "/ws?token=bad");
        EXPECT_EQ(refused.head().rfind("HTTP/1.1 403", 0), 0u) << refused.head();
        Client ok(app.port(), "/ws?token=ok", "Sec-WebSocket-Protocol: v1, v2\r\n");
        EXPECT_EQ(ok.head().rfind("HTTP/1.1 101", 0), 0u) << ok.head();
        EXPECT_NE(ok.head().find("Sec-WebSocket-Protocol: v1\r\n"), std::string::npos) << ok.head();
    }
    app.stop();
    app.wait();
}

}  // namespace
}  // namespace slipstream
