// H2Metrics: the engine's TLS and HTTP/2 metric families (handshakes, streams, resets, GOAWAY, flood defences).
#pragma once

#include "http/h2/session_stats.h"
#include "metrics/registry.h"

namespace slipstream::server {

/// Registered once per server (a member of ServerMetrics). Counter updates are thread-safe and lock-free;
/// a labelled child is looked up (a lock) only when its event happens: once per handshake, per RST_STREAM
/// or GOAWAY, per flood.
struct H2Metrics {
    explicit H2Metrics(metrics::Registry& registry);

    metrics::CounterFamily& tls_handshakes;   // slipstream_tls_handshakes_total{version,alpn}
    metrics::Counter& tls_failures;           // slipstream_tls_handshake_failures_total
    metrics::CounterFamily& connections;      // slipstream_http2_connections_total{via}: alpn|prior_knowledge|upgrade
    metrics::Counter& streams;                // slipstream_http2_streams_opened_total
    metrics::CounterFamily& resets_received;  // slipstream_http2_rst_stream_received_total{code}
    metrics::CounterFamily& resets_sent;      // slipstream_http2_rst_stream_sent_total{code}
    metrics::CounterFamily& goaways_sent;     // slipstream_http2_goaway_sent_total{code}
    metrics::CounterFamily& floods;           // slipstream_http2_flood_defenses_total{kind}

    /// Counts what `now` holds beyond `seen`, then sets `seen` to `now` (each session keeps its `seen`).
    void add(const http::h2::SessionStats& now, http::h2::SessionStats& seen);
    /// A TLS handshake that completed: `alpn` empty means none was negotiated (labelled "none").
    void tls_handshake(std::string_view version, std::string_view alpn);
};

}  // namespace slipstream::server
