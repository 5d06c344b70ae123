// CodingMetrics: metric families for compression, compressed request bodies and streamed responses (SSE).
#pragma once

#include "metrics/registry.h"

namespace slipstream::server {

/// Registered once per server (a member of ServerMetrics). Updates are thread-safe.
struct CodingMetrics {
    explicit CodingMetrics(metrics::Registry& registry);

    metrics::CounterFamily& compressed_responses;  // slipstream_http_compressed_responses_total{encoding}
    metrics::CounterFamily& saved_bytes;           // slipstream_http_compression_saved_bytes_total{encoding}
    metrics::CounterFamily& decoded_requests;      // slipstream_http_decompressed_requests_total{encoding}
    metrics::CounterFamily& rejected_requests;     // slipstream_http_encoded_requests_rejected_total{reason}
    metrics::Gauge& streams_open;                  // slipstream_http_streams_open
    metrics::Counter& streams_cancelled;           // slipstream_http_streams_cancelled_total
    metrics::Counter& sse_heartbeats;              // slipstream_sse_heartbeats_total
};

}  // namespace slipstream::server
