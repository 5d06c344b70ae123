// WebSocketSession: one upgraded connection: reads messages, calls the handler, writes frames, closes cleanly.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string_view>

#include "http/ws/deflate_config.h"
#include "http/ws/inflater.h"
#include "http/ws/message_reader.h"
#include "http/ws/opcode.h"
#include "net/timer.h"
#include "server/websocket_channel.h"
#include "server/websocket_transport.h"
#include "slipstream/websocket.h"

namespace slipstream::server {

class Worker;

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

  private:
    enum class State : std::uint8_t { kOpen, kClosing, kClosed };

    void handle_event(const http::ws::MessageReader::Event& event);
    void on_peer_close(std::uint16_t code, std::string_view reason);
    void write_frame(http::ws::Opcode opcode, std::string_view payload, bool compress);
    void report_close(std::uint16_t code, std::string_view reason);
    void on_ping_timer();
    void on_close_timer();
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
    net::Timer ping_timer_;
    net::Timer close_timer_;
    State state_ = State::kOpen;
    bool reported_ = false;
    bool awaiting_pong_ = false;
    bool activity_ = false;  // input arrived since the keep-alive timer last ran
};

}  // namespace slipstream::server
