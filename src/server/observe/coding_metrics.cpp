// CodingMetrics: family registration.
#include "server/observe/coding_metrics.h"

namespace slipstream::server {

CodingMetrics::CodingMetrics(metrics::Registry& r)
    : compressed_responses(r.counter_family("slipstream_http_compressed_responses_total",
                                            "Responses sent compressed, by content coding.", {"encoding"})),
      saved_bytes(r.counter_family("slipstream_http_compression_saved_bytes_total",
                                   "Body bytes saved by compressing complete responses, by content coding.",
                                   {"encoding"})),
      decoded_requests(r.counter_family("slipstream_http_decompressed_requests_total",
                                        "Request bodies decoded from a content coding, by coding.", {"encoding"})),
      rejected_requests(r.counter_family(
          "slipstream_http_encoded_requests_rejected_total",
          "Compressed request bodies refused (unsupported, too_large, ratio, malformed).", {"reason"})),
      streams_open(r.gauge("slipstream_http_streams_open", "Streamed responses (SSE included) in progress.")),
      streams_cancelled(
          r.counter("slipstream_http_streams_cancelled_total", "Streamed responses cut because the client went away.")),
      sse_heartbeats(r.counter("slipstream_sse_heartbeats_total", "Heartbeat comments sent on idle event streams.")) {}

}  // namespace slipstream::server
