// UpgradedWebSocket: the protocol of a connection upgraded to WebSocket: every byte to its WebSocketSession.
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <string_view>

#include "server/conn/connection.h"
#include "server/conn/protocol_session.h"
#include "server/ws/websocket_session.h"
#include "server/ws/websocket_transport.h"

namespace slipstream::server {

/// Made by H1Session::upgrade_websocket after a valid handshake. Reads the connection's input into the session
/// (paused while the unsent output is over output_limit()), and is the session's WebSocketTransport: frames go
/// into the connection's output. The connection timer only guards writes; the session keeps its own ping and
/// close timers. Loop thread only.
class UpgradedWebSocket final : public ProtocolSession, private WebSocketTransport {
  public:
    UpgradedWebSocket(Connection& connection, std::shared_ptr<const WebSocketHandler> handler,
                      std::shared_ptr<slipstream::detail::WebSocketChannel> channel,
                      const std::optional<http::ws::DeflateConfig>& deflate);

    WebSocketSession& session() { return session_; }

    void on_read(std::string_view data, bool from_scratch) override;
    void on_eof() override;
    void after_output() override { after_output(false); }
    void on_timer(TimerReason reason) override;
    void refresh_timer(bool progressed) override;
    void begin_drain() override { session_.begin_drain(); }
    void on_closed() override { session_.on_transport_closed(); }
    bool idle() const override { return false; }

  private:
    // Unsent output past which reading pauses: lower than on HTTP/1.1, so sends made while reading (an echo)
    // reach the pause before the send queue's cap drops them.
    std::size_t output_limit() const;
    // Hands `data` to the session unless reading pauses (then it waits in the connection's input). Returns false
    // when it was not taken.
    bool take(std::string_view data);
    void after_output(bool progressed);

    OutputQueue& ws_output() override { return conn_.output(); }
    void ws_flush_soon() override { conn_.schedule_flush(); }
    void ws_close_after_output() override;
    void ws_abort() override { conn_.close(); }

    Connection& conn_;
    WebSocketSession session_;
};

}  // namespace slipstream::server
