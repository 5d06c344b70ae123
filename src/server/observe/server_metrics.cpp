// The engine's metric families and the per-thread child cache.
#include "server/observe/server_metrics.h"

#include <string>

namespace slipstream::server {

ServerMetrics::ServerMetrics(metrics::Registry& r)
    : requests(
          r.counter_family("slipstream_http_requests_total", "HTTP requests answered.", {"route", "method", "status"})),
      duration(r.histogram_family("slipstream_http_request_duration_seconds",
                                  "Time from a complete request head to the queued response.", {"route", "method"},
                                  metrics::Buckets::latency())),
      request_bytes(r.counter_family("slipstream_http_request_body_bytes_total", "Request body bytes received.",
                                     {"route", "method"})),
      response_bytes(r.counter_family("slipstream_http_response_bytes_total",
                                      "Response bytes (head and body) queued for sending.", {"route", "method"})),
      in_flight(r.gauge("slipstream_http_requests_in_flight", "Requests dispatched and not yet answered.")),
      accepted(r.counter("slipstream_connections_accepted_total", "Connections accepted.")),
      closed(r.counter("slipstream_connections_closed_total", "Connections closed.")),
      shed(r.counter("slipstream_connections_shed_total", "Connections refused with 503 past max-connections.")),
      handlers_refused(r.counter("slipstream_handlers_refused_total",
                                 "Requests refused (503 or REFUSED_STREAM) past max-handlers-in-flight.")),
      refused_per_ip(r.counter("slipstream_connections_refused_per_ip_total",
                               "Connections refused with 429 past max-connections-per-ip.")),
      parse_errors(
          r.counter_family("slipstream_http_parse_errors_total", "Malformed or oversized requests by kind.", {"kind"})),
      timeouts(r.counter_family("slipstream_timeouts_total", "Deadlines that passed, by kind.", {"kind"})),
      log_dropped(
          r.counter("slipstream_access_log_dropped_total", "Access log lines dropped because the writer fell behind.")),
      websocket(r),
      coding(r),
      h2(r) {}

const RequestCounters& MetricsCache::lookup(std::uint64_t key, std::string_view route, Method method, int status) {
    auto it = cache_.find(key);
    if (it == cache_.end()) {
        std::string status_text = std::to_string(status);
        std::string_view m = method_name(method);
        RequestCounters c{metrics_.requests.with({route, m, status_text}).local(),
                          metrics_.duration.with({route, m}).local(), metrics_.request_bytes.with({route, m}).local(),
                          metrics_.response_bytes.with({route, m}).local()};
        it = cache_.emplace(key, c).first;
    }
    last_key_ = key;
    last_ = &it->second;  // unordered_map nodes do not move on rehash
    return *last_;
}

}  // namespace slipstream::server
