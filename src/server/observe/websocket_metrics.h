// WebSocketMetrics: the engine's WebSocket metric families.
#pragma once

#include <cstdint>
#include <string_view>

#include "metrics/registry.h"

namespace slipstream::server {

/// Registered once per server (a member of ServerMetrics). Updates are thread-safe and lock-free.
struct WebSocketMetrics {
    explicit WebSocketMetrics(metrics::Registry& registry);

    metrics::Counter& upgrades;        // slipstream_ws_upgrades_total
    metrics::CounterFamily& rejected;  // slipstream_ws_handshake_rejected_total{status}
    metrics::Gauge& open;              // slipstream_ws_connections_open
    metrics::Counter& messages_in;     // slipstream_ws_messages_received_total
    metrics::Counter& messages_out;    // slipstream_ws_messages_sent_total
    metrics::Counter& bytes_in;        // slipstream_ws_received_bytes_total (payload, as inflated)
    metrics::Counter& bytes_out;       // slipstream_ws_sent_bytes_total (payload, before deflate)
    metrics::CounterFamily& closes;    // slipstream_ws_closes_total{code}
    metrics::Counter& dropped_sends;   // slipstream_ws_sends_dropped_total
    metrics::Counter& pong_timeouts;   // slipstream_ws_pong_timeouts_total

    /// The `code` label of closes_total: well-known codes as themselves, others grouped ("3xxx", "4xxx",
    /// "other"), so a client cannot grow the label set.
    static std::string_view code_label(std::uint16_t code);
};

}  // namespace slipstream::server
