// WebSocket routes end to end in-process: App on port 0, a blocking socket client, server pings, drain, refusals.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <future>
#include <string>
#include <thread>

#include "http/ws/frame_writer.h"
#include "slipstream/app.h"

namespace slipstream {
namespace {

namespace ws = http::ws;

// A client that handshakes with raw bytes and reads whole frames; every read has a 10 s safety timeout.
class Client {
  public:
    explicit Client(std::uint16_t port, const std::string& path = "/ws", const std::string& extra = "") {
        fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
        timeval tv{10, 0};
        ::setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
        sockaddr_in a{};
        a.sin_family = AF_INET;
        a.sin_port = htons(port);
        a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        connected_ = ::connect(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0;
        send("GET " + path +
             " HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
             "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n" +
             extra + "\r\n");
        while (head_.find("\r\n\r\n") == std::string::npos && fill()) {
        }
        std::size_t end = head_.find("\r\n\r\n");
        if (end != std::string::npos) {
            buf_ = head_.substr(end + 4);
            head_.resize(end + 4);
        }
    }
    ~Client() { ::close(fd_); }

    const std::string& head() const { return head_; }
    void send(const std::string& bytes) { (void)!::write(fd_, bytes.data(), bytes.size()); }
    void send_frame(ws::Opcode op, std::string_view payload) {
        std::string f;
        ws::append_frame(f, op, payload, ws::FrameOptions{true, false, std::array<std::uint8_t, 4>{1, 2, 3, 4}});
        send(f);
    }
    // (opcode, payload) of the next frame; opcode -1 when the connection closed.
    std::pair<int, std::string> read_frame() {
        if (!need(2)) return {-1, ""};
        int op = buf_[0] & 0x0F;
        std::size_t len = static_cast<std::uint8_t>(buf_[1]) & 0x7F, off = 2;
        if (len == 126) {
            if (!need(4)) return {-1, ""};
            len = (static_cast<std::uint8_t>(buf_[2]) << 8) | static_cast<std::uint8_t>(buf_[3]);
            off = 4;
        }
        if (!need(off + len)) return {-1, ""};
        std::string payload = buf_.substr(off, len);
        buf_.erase(0, off + len);
        return {op, payload};
    }
    bool closed_by_server() {
        char c;
        return buf_.empty() && ::read(fd_, &c, 1) == 0;
    }
    bool connected() const { return connected_; }

  private:
    bool fill() {
        char tmp[4096];
        ssize_t n = ::read(fd_, tmp, sizeof tmp);
        if (n <= 0) return false;
        (head_.find("\r\n\r\n") == std::string::npos ? head_ : buf_).append(tmp, static_cast<std::size_t>(n));
        return true;
    }
    bool need(std::size_t n) {
        while (buf_.size() < n) {
            char tmp[4096];
            ssize_t r = ::read(fd_, tmp, sizeof tmp);
            if (r <= 0) return false;
            buf_.append(tmp, static_cast<std::size_t>(r));
        }
        return true;
    }

    int fd_ = -1;
    bool connected_ = false;
    std::string head_, buf_;
};

ServerOptions test_options() {
    ServerOptions o;
    o.threads = 1;
    o.access_log = false;
    return o;
}

std::string close_payload(std::uint16_t code) {
    return {static_cast<char>(code >> 8), static_cast<char>(code & 0xFF)};
}

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
