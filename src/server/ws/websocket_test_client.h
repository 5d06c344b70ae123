// WebSocket server tests' client: a raw-byte handshake, whole-frame reads, and the shared test options.
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>

#include "http/ws/frame_writer.h"
#include "slipstream/server_options.h"

namespace slipstream::ws_testing {

namespace ws = http::ws;

// A masked client frame.
inline std::string client_frame(ws::Opcode op, std::string_view payload) {
    std::string f;
    ws::append_frame(f, op, payload, ws::FrameOptions{true, false, std::array<std::uint8_t, 4>{1, 2, 3, 4}});
    return f;
}

// A client that handshakes with raw bytes and reads whole frames; every read has a 10 s safety timeout.
class Client {
  public:
    // `early`: bytes sent right after the request, before the answer is read.
    explicit Client(std::uint16_t port, const std::string& path = "/ws", const std::string& extra = "",
                    const std::string& early = "") {
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
             extra + "\r\n" + early);
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
    void send_frame(ws::Opcode op, std::string_view payload) { send(client_frame(op, payload)); }
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

inline ServerOptions test_options() {
    ServerOptions o;
    o.threads = 1;
    o.access_log = false;
    return o;
}

inline std::string close_payload(std::uint16_t code) {
    return {static_cast<char>(code >> 8), static_cast<char>(code & 0xFF)};
}

}  // namespace slipstream::ws_testing
