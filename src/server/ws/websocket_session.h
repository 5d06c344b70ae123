// WebSocketSession: one upgraded connection: reads messages, calls the handler, writes frames, closes cleanly.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "http/ws/deflate_config.h"
#include "http/ws/inflater.h"
#include "http/ws/message_reader.h"
#include "http/ws/opcode.h"
#include "net/timer.h"
#include "server/ws/websocket_channel.h"
#include "server/ws/websocket_transport.h"
#include "slipstream/websocket.h"

namespace slipstream::server {

class Worker;

/// Extra header fields of a handshake answer (checked with http::ws::is_valid_answer_header()).
using WebSocketAnswerHeaders = std::vector<std::pair<std::string, std::string>>;

/// How the carrying connection answers a handshake the handler accepts or refuses later (manual accept):
/// a 101 (HTTP/1.1) or 200 (HTTP/2) with the subprotocol and headers, or an HTTP refusal after which the
/// connection (or stream) closes. Each is called at most once, on the loop thread.
struct WebSocketAnswer {
    std::function<void(std::string_view subprotocol, const WebSocketAnswerHeaders& headers)> accept;
    std::function<void(Response&& refusal)> refuse;
};

/// Owned by its connection, on the connection's I/O thread. The connection passes every byte it reads
/// (decrypted, for TLS) to on_bytes(); frames go out through the transport's output. Close handshake:
/// a close from the client is echoed and the connection closes once it is written; a close from the
/// server (WebSocket::close, drain with 1001, a protocol error) waits up to ws_close_timeout_ms for the
/// client's close. Keep-alive: after ws_ping_interval_ms without input a ping is sent; no pong within
/// ws_pong_timeout_ms drops the connection.
class WebSocketSession {
  public:
    WebSocketSession(WebSocketTransport& transport, Worker& worker, std::shared_ptr<const WebSocketHandler> handler,
                     std::shared_ptr<slipstream::detail::WebSocketChannel> channel,
                     const std::optional<http::ws::DeflateConfig>& deflate);
    ~WebSocketSession();
    WebSocketSession(const WebSocketSession&) = delete;
    WebSocketSession& operator=(const WebSocketSession&) = delete;

    /// After the 101 is queued: calls on_open and arms the keep-alive timer.
    void start();
    /// Manual accept: the handshake waits; on_open runs now, and input is held (up to
    /// ws_max_frame_bytes) until accept_now(). Refused with 504 after handler_timeout_ms.
    void start_pending(WebSocketAnswer answer);
    /// Consumes every byte (input after the close handshake is dropped).
    void on_bytes(std::string_view data);
    /// The connection is closing: reports 1006 to the handler unless on_close already ran.
    void on_transport_closed();
    /// The server drains: close with 1001.
    void begin_drain();
    /// The connection wrote output; `unsent` bytes remain. Runs on_drain when the queue got low.
    void after_output(std::size_t unsent);

    // Loop-thread entry points of the WebSocket handle.
    void send_now(http::ws::Opcode opcode, std::string_view payload);
    void close_now(std::uint16_t code, std::string_view reason);
    void accept_now(std::string_view subprotocol, const WebSocketAnswerHeaders& headers);
    /// Refuses a pending handshake with `refusal`; on_close runs with `code` and `reason`.
    void refuse_now(Response&& refusal, std::uint16_t code, std::string_view reason);

  private:
    enum class State : std::uint8_t { kPending, kOpen, kClosing, kClosed };

    void handle_event(const http::ws::MessageReader::Event& event);
    void on_peer_close(std::uint16_t code, std::string_view reason);
    void write_frame(http::ws::Opcode opcode, std::string_view payload, bool compress);
    void report_close(std::uint16_t code, std::string_view reason);
    void on_ping_timer();
    void on_close_timer();
    void arm_keepalive();
    // The handshake was answered with 101: counted as an upgrade and an open connection.
    void count_upgrade();
    // Runs a handler callback; an exception is logged and closes the connection with 1011.
    template <typename Fn>
    void guarded(const char* what, Fn&& fn);

    WebSocketTransport& transport_;
    Worker& worker_;
    std::shared_ptr<const WebSocketHandler> handler_;
    std::shared_ptr<slipstream::detail::WebSocketChannel> channel_;
    WebSocket handle_;
    http::ws::MessageReader reader_;
    std::optional<http::ws::DeflateConfig> deflate_;
    std::unique_ptr<http::ws::Deflater> deflater_;  // made at the first compressed send
    std::string frame_scratch_;
    WebSocketAnswer answer_;     // manual accept: set while the handshake is pending
    std::string pending_input_;  // bytes that arrived while the handshake was pending
    net::Timer ping_timer_;
    net::Timer close_timer_;
    State state_ = State::kOpen;
    bool reported_ = false;
    bool counted_ = false;  // count_upgrade() ran
    bool awaiting_pong_ = false;
    bool activity_ = false;  // input arrived since the keep-alive timer last ran
};

}  // namespace slipstream::server
