// H2Metrics: family registration and the per-session deltas of HTTP/2 protocol events.
#include "server/observe/h2_metrics.h"

#include <array>
#include <cstddef>
#include <cstdint>

#include "http/h2/error_code.h"

namespace slipstream::server {
namespace {

namespace h2 = http::h2;
using Codes = std::array<std::uint64_t, h2::SessionStats::kCodes>;

std::string_view code_label(std::size_t index) {
    if (index == h2::SessionStats::kOtherCode) return "OTHER";
    return h2::error_code_name(static_cast<h2::ErrorCode>(index));
}

void add_codes(metrics::CounterFamily& family, const Codes& now, Codes& seen) {
    for (std::size_t i = 0; i < now.size(); ++i) {
        if (now[i] == seen[i]) continue;
        family.with({code_label(i)}).inc(now[i] - seen[i]);
        seen[i] = now[i];
    }
}

}  // namespace

H2Metrics::H2Metrics(metrics::Registry& r)
    : tls_handshakes(r.counter_family("slipstream_tls_handshakes_total",
                                      "TLS handshakes completed, by protocol version and ALPN result.",
                                      {"version", "alpn"})),
      tls_failures(r.counter("slipstream_tls_handshake_failures_total",
                             "TLS handshakes that failed (bad client hello, no shared protocol, peer left).")),
      connections(r.counter_family("slipstream_http2_connections_total",
                                   "Connections that switched to HTTP/2, by how: alpn, prior_knowledge, upgrade.",
                                   {"via"})),
      streams(r.counter("slipstream_http2_streams_opened_total", "HTTP/2 request streams opened by clients.")),
      resets_received(r.counter_family("slipstream_http2_rst_stream_received_total",
                                       "RST_STREAM frames received, by error code.", {"code"})),
      resets_sent(r.counter_family("slipstream_http2_rst_stream_sent_total", "RST_STREAM frames sent, by error code.",
                                   {"code"})),
      goaways_sent(
          r.counter_family("slipstream_http2_goaway_sent_total", "GOAWAY frames sent, by error code.", {"code"})),
      floods(r.counter_family("slipstream_http2_flood_defenses_total",
                              "HTTP/2 connections ended by a flood defence, by kind.", {"kind"})) {}

void H2Metrics::add(const h2::SessionStats& now, h2::SessionStats& seen) {
    if (now.streams_opened != seen.streams_opened) {
        streams.inc(now.streams_opened - seen.streams_opened);
        seen.streams_opened = now.streams_opened;
    }
    if (now.events == seen.events) return;
    seen.events = now.events;
    add_codes(resets_received, now.rst_received, seen.rst_received);
    add_codes(resets_sent, now.rst_sent, seen.rst_sent);
    add_codes(goaways_sent, now.goaway_sent, seen.goaway_sent);
    for (std::size_t i = 0; i < now.floods.size(); ++i) {
        if (now.floods[i] == seen.floods[i]) continue;
        floods.with({h2::flood_kind_name(static_cast<h2::FloodKind>(i))}).inc(now.floods[i] - seen.floods[i]);
        seen.floods[i] = now.floods[i];
    }
}

void H2Metrics::tls_handshake(std::string_view version, std::string_view alpn) {
    tls_handshakes.with({version, alpn.empty() ? std::string_view("none") : alpn}).inc();
}

}  // namespace slipstream::server
