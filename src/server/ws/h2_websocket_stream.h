// H2WebSocketStream: one WebSocket carried by one HTTP/2 stream (RFC 8441): the transport its session writes through.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <optional>

#include "http/h2/session.h"
#include "http/ws/deflate_config.h"
#include "server/core/output_queue.h"
#include "server/ws/websocket_channel.h"
#include "server/ws/websocket_session.h"
#include "server/ws/websocket_transport.h"

namespace slipstream::server {

class Worker;

/// Owned by the H2Session, one per extended CONNECT stream whose handshake succeeded (or waits for a manual
/// accept). The stream's DATA in both directions carries RFC 6455 frames: received bytes go to the
/// WebSocketSession; its frames go out through ServerSession::write(), its close as END_STREAM (end()), an
/// abort as RST_STREAM(CANCEL). Flow control: received bytes reopen the peer's windows (consume()) only while
/// the stream's unsent output is under the connection's WebSocket output limit, as HTTP/1.1 stops reading.
/// Loop thread only; destroyed by the H2Session once the stream closed.
class H2WebSocketStream final : private WebSocketTransport {
  public:
    /// `output_ready` tells the connection that frames are queued (it pulls them on its next flush).
    H2WebSocketStream(http::h2::ServerSession& session, http::h2::StreamId id, Worker& worker,
                      std::function<void()> output_ready);
    ~H2WebSocketStream();
    H2WebSocketStream(const H2WebSocketStream&) = delete;
    H2WebSocketStream& operator=(const H2WebSocketStream&) = delete;

    /// Makes the WebSocketSession (call once, before any other call); the caller then start()s it or
    /// start_pending()s it.
    WebSocketSession& open(Worker& worker, std::shared_ptr<const WebSocketHandler> handler,
                           std::shared_ptr<slipstream::detail::WebSocketChannel> channel,
                           const std::optional<http::ws::DeflateConfig>& deflate);

    /// The stream's next DATA bytes.
    void on_data(std::string_view data);
    /// The client's END_STREAM: as a TCP FIN on HTTP/1.1, the WebSocket ends (1006 unless it closed
    /// cleanly) and the stream ends on our side too.
    void on_end();
    /// The stream closed (reset, or both sides ended) or the connection is going: reports 1006 to the
    /// handler unless the close handshake finished. Nothing is written after this.
    void on_closed();
    /// The stream's answer is complete (a refused handshake): nothing more is written to it.
    void set_answered() { ended_ = true; }
    /// Drain: close with 1001.
    void begin_drain();
    /// Output moved on; `unsent_output` is the connection's unwritten output. Reopens the windows for
    /// bytes held back and runs the handler's on_drain when the backlog got low.
    void after_output(std::size_t unsent_output);

  private:
    // WebSocketTransport.
    OutputQueue& ws_output() override { return out_; }
    void ws_flush_soon() override;
    void ws_close_after_output() override;
    void ws_abort() override;

    // Moves queued frames into the stream (ServerSession::write) and refreshes the channel's backlog.
    void move_output();
    std::size_t backlog() const;
    // Returns the bytes processed so far to the windows unless the backlog is over the limit.
    void release_input();
    // Ends our side after the queued frames (RST_STREAM when no answer was started).
    void finish();

    http::h2::ServerSession& session_;
    http::h2::StreamId id_;
    std::function<void()> output_ready_;
    std::size_t limit_;  // unsent output past which input is held back
    OutputQueue out_;    // what the WebSocketSession wrote since the last move_output()
    std::shared_ptr<slipstream::detail::WebSocketChannel> channel_;
    std::unique_ptr<WebSocketSession> ws_;
    std::size_t held_ = 0;           // bytes processed and not yet returned to the windows
    std::size_t unsent_output_ = 0;  // the connection's, at the last after_output()
    bool ended_ = false;             // end() or reset() was called: nothing more is written
    bool closed_ = false;            // on_closed() ran
};

}  // namespace slipstream::server
