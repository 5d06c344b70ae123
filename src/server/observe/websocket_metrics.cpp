// WebSocketMetrics: family registration and the bounded close-code label.
#include "server/observe/websocket_metrics.h"

namespace slipstream::server {

WebSocketMetrics::WebSocketMetrics(metrics::Registry& r)
    : upgrades(r.counter("slipstream_ws_upgrades_total", "WebSocket handshakes accepted.")),
      rejected(r.counter_family("slipstream_ws_handshake_rejected_total",
                                "Requests to WebSocket routes refused before the upgrade, by HTTP status.",
                                {"status"})),
      open(r.gauge("slipstream_ws_connections_open", "Open WebSocket connections.")),
      messages_in(r.counter("slipstream_ws_messages_received_total", "WebSocket messages received.")),
      messages_out(r.counter("slipstream_ws_messages_sent_total", "WebSocket messages queued for sending.")),
      bytes_in(r.counter("slipstream_ws_received_bytes_total", "WebSocket message payload bytes received.")),
      bytes_out(r.counter("slipstream_ws_sent_bytes_total", "WebSocket message payload bytes queued for sending.")),
      closes(r.counter_family("slipstream_ws_closes_total", "WebSocket connections ended, by close code.", {"code"})),
      dropped_sends(r.counter("slipstream_ws_sends_dropped_total", "WebSocket sends refused: send queue full.")),
      pong_timeouts(r.counter("slipstream_ws_pong_timeouts_total", "WebSocket connections dropped: no pong.")) {}

std::string_view WebSocketMetrics::code_label(std::uint16_t code) {
    switch (code) {
        case 1000:
            return "1000";
        case 1001:
            return "1001";
        case 1002:
            return "1002";
        case 1003:
            return "1003";
        case 1005:
            return "1005";
        case 1006:
            return "1006";
        case 1007:
            return "1007";
        case 1008:
            return "1008";
        case 1009:
            return "1009";
        case 1010:
            return "1010";
        case 1011:
            return "1011";
        case 1012:
            return "1012";
        case 1013:
            return "1013";
        case 1014:
            return "1014";
        default:
            break;
    }
    if (code >= 3000 && code <= 3999) return "3xxx";
    if (code >= 4000 && code <= 4999) return "4xxx";
    return "other";
}

}  // namespace slipstream::server
