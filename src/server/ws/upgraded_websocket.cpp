// UpgradedWebSocket: a WebSocket connection's reads, backpressure and transport.
#include "server/ws/upgraded_websocket.h"

#include <algorithm>

namespace slipstream::server {

UpgradedWebSocket::UpgradedWebSocket(Connection& connection, std::shared_ptr<const WebSocketHandler> handler,
                                     std::shared_ptr<slipstream::detail::WebSocketChannel> channel,
                                     const std::optional<http::ws::DeflateConfig>& deflate)
    : conn_(connection),
      session_(static_cast<WebSocketTransport&>(*this), connection.worker(), std::move(handler), std::move(channel),
               deflate) {}

std::size_t UpgradedWebSocket::output_limit() const {
    const ServerOptions& o = conn_.worker().options();
    return std::max<std::size_t>(std::min(o.max_output_buffer, o.ws_max_send_queue_bytes / 2), 1);
}

bool UpgradedWebSocket::take(std::string_view data) {
    if (conn_.closed() || !conn_.reading() || conn_.closing()) return false;
    if (conn_.output().size() >= output_limit()) {
        conn_.set_reading(false);  // resumes when the output drained
        return false;
    }
    session_.on_bytes(data);
    return true;
}

void UpgradedWebSocket::on_read(std::string_view data, bool from_scratch) {
    base::Buffer& in = conn_.input();
    bool taken = data.empty() || take(data);
    if (conn_.closed()) return;
    if (from_scratch) {
        if (!taken && !conn_.closing()) in.append(data);
    } else if (taken) {
        in.clear();
    }
    conn_.flush();
    if (conn_.closed()) return;
    after_output(true);
    conn_.read_buffered_soon();
}

void UpgradedWebSocket::after_output(bool progressed) {
    if (conn_.closed()) return;
    session_.after_output(conn_.output().size());
    if (conn_.closed()) return;
    if (conn_.closing() || conn_.eof()) {
        if (progressed) conn_.refresh_timer(true);
        return;
    }
    // Input held back while the output was over the limit: the session takes it once there is room.
    base::Buffer& in = conn_.input();
    while (!conn_.reading() && !conn_.closing() && conn_.output().size() < output_limit()) {
        conn_.set_reading(true);
        if (in.empty()) break;
        if (take(in.view())) in.clear();
        if (conn_.closed()) return;
        conn_.flush();
        if (conn_.closed()) return;
    }
    if (!conn_.closed()) refresh_timer(progressed);
}

void UpgradedWebSocket::on_eof() {
    conn_.set_eof();
    conn_.set_reading(false);
    if (conn_.output().empty()) {
        conn_.close();
        return;
    }
    conn_.set_closing();  // what was queued goes out, then the connection closes
    conn_.flush();
}

void UpgradedWebSocket::on_timer(TimerReason) {
    conn_.close();  // not armed by this session: a deadline left from before the upgrade
}

void UpgradedWebSocket::refresh_timer(bool progressed) {
    if (conn_.refresh_write_timer(progressed)) return;
    conn_.stop_timer();  // the WebSocket session keeps its own ping and close timers
}

void UpgradedWebSocket::ws_close_after_output() {
    conn_.set_closing();
    conn_.set_reading(false);
    conn_.schedule_flush();
}

}  // namespace slipstream::server
