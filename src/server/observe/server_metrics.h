// ServerMetrics: the engine's metric families, and a per-thread cache of each route's children.
#pragma once

#include <cstdint>
#include <string_view>
#include <unordered_map>

#include "metrics/registry.h"
#include "router/method.h"
#include "server/observe/coding_metrics.h"
#include "server/observe/h2_metrics.h"
#include "server/observe/websocket_metrics.h"

namespace slipstream::server {

/// Registered once per server in its Registry. Label values: route template ("(unmatched)" when no
/// route matched), method, status.
struct ServerMetrics {
    explicit ServerMetrics(metrics::Registry& registry);

    metrics::CounterFamily& requests;        // slipstream_http_requests_total{route,method,status}
    metrics::HistogramFamily& duration;      // slipstream_http_request_duration_seconds{route,method}
    metrics::CounterFamily& request_bytes;   // slipstream_http_request_body_bytes_total{route,method}
    metrics::CounterFamily& response_bytes;  // slipstream_http_response_bytes_total{route,method}
    metrics::Gauge& in_flight;               // slipstream_http_requests_in_flight
    metrics::Counter& accepted;              // slipstream_connections_accepted_total
    metrics::Counter& closed;                // slipstream_connections_closed_total
    metrics::Counter& shed;                  // slipstream_connections_shed_total
    metrics::Counter& handlers_refused;      // slipstream_handlers_refused_total
    metrics::Counter& refused_per_ip;        // slipstream_connections_refused_per_ip_total
    metrics::CounterFamily& parse_errors;    // slipstream_http_parse_errors_total{kind}
    metrics::CounterFamily& timeouts;        // slipstream_timeouts_total{kind}
    metrics::Counter& log_dropped;           // slipstream_access_log_dropped_total
    WebSocketMetrics websocket;              // slipstream_ws_*
    CodingMetrics coding;                    // compression, compressed requests, streams, SSE
    H2Metrics h2;                            // slipstream_tls_*, slipstream_http2_*
};

/// The children one (route, method, status) updates, as the owning thread's cells: looked up once per
/// thread, then cached, so a request's update is a few relaxed atomic adds with no shard or label lookup.
struct RequestCounters {
    metrics::Counter::Local requests;
    metrics::Histogram::Local duration;
    metrics::Counter::Local request_bytes;
    metrics::Counter::Local response_bytes;
};

/// Per I/O thread; not thread-safe: use it only on the thread that owns it (its cells are that thread's).
/// A repeat of the last (route, method, status) costs one compare; any other hit one hash lookup.
class MetricsCache {
  public:
    explicit MetricsCache(ServerMetrics& metrics) : metrics_(metrics) {}
    /// `route` must outlive the cache (route templates live in the router). Unknown methods share the
    /// label "OTHER", so a client cannot grow the label set.
    /// Inline: the repeat is the per-request case, a compare without a call.
    const RequestCounters& get(std::uint32_t route_key, std::string_view route, Method method, int status) {
        const std::uint64_t key = (std::uint64_t{route_key} << 32) |
                                  (std::uint64_t{static_cast<std::uint8_t>(method)} << 16) |
                                  static_cast<std::uint16_t>(status);
        return key == last_key_ ? *last_ : lookup(key, route, method, status);
    }
    ServerMetrics& metrics() { return metrics_; }

  private:
    // The map lookup (creating the route's counters on first use); becomes the last hit.
    const RequestCounters& lookup(std::uint64_t key, std::string_view route, Method method, int status);

    ServerMetrics& metrics_;
    std::unordered_map<std::uint64_t, RequestCounters> cache_;
    // The last hit, checked before the map: a connection mostly repeats one route and status.
    std::uint64_t last_key_ = ~std::uint64_t{0};
    const RequestCounters* last_ = nullptr;
};

inline constexpr std::uint32_t kUnmatchedRoute = 0xFFFFFFu;

}  // namespace slipstream::server
