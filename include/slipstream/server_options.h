// ServerOptions: every limit and timeout of the engine, with its default.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace slipstream {

/// Limits and timeouts. Defaults are near nginx's; each is a command-line flag and a
/// SLIPSTREAM_* environment variable in the applications built on this API.
struct ServerOptions {
    /// I/O threads; 0 means one per core.
    unsigned threads = 0;

    // HTTP/1.1 request limits.
    std::size_t max_request_line = 8 * 1024;   // 414 past it
    std::size_t max_header_bytes = 16 * 1024;  // 431 past it
    std::size_t max_headers = 100;             // 431 past it
    std::size_t max_body_bytes = 1024 * 1024;  // 413 past it

    // Timeouts in milliseconds.
    std::uint32_t header_timeout_ms = 10'000;     // whole request head -> 408
    std::uint32_t body_timeout_ms = 30'000;       // body inactivity -> 408
    std::uint32_t keepalive_timeout_ms = 30'000;  // idle between requests -> close
    std::uint32_t write_timeout_ms = 30'000;      // client stopped reading -> close
    std::uint32_t handler_timeout_ms = 60'000;    // no answer from the handler -> 504

    // Connections.
    std::size_t max_connections = 10'000;              // past it new connections get 503 and close
    std::size_t max_requests_per_connection = 10'000;  // then Connection: close
    std::size_t max_pipelined = 64;                    // requests in flight per connection before reading pauses
    std::size_t max_output_buffer = 4 * 1024 * 1024;   // unsent bytes per connection before reading pauses
    /// I/O threads wait in io_uring instead of epoll, and plain connections receive and send through the
    /// ring (one system call per keep-alive request instead of three). TLS connections stay readiness-driven.
    /// Server::start() throws when the build (liburing) or the kernel cannot do it.
    bool io_uring = false;

    // WebSocket routes (see slipstream/websocket.h).
    std::size_t ws_max_message_bytes = 1024 * 1024;         // after reassembly and inflation: close 1009 past it
    std::size_t ws_max_frame_bytes = 1024 * 1024;           // one frame's payload: close 1009 past it
    std::size_t ws_max_send_queue_bytes = 4 * 1024 * 1024;  // unsent bytes per connection before sends are dropped
    bool ws_deflate = true;                                 // accept permessage-deflate offers
    std::uint32_t ws_ping_interval_ms = 30'000;             // server ping after this much silence; 0: never
    std::uint32_t ws_pong_timeout_ms = 30'000;              // no pong in time -> the connection is dropped
    std::uint32_t ws_close_timeout_ms = 5'000;              // wait for the client's close frame, then drop

    // Response compression: the coding is chosen by the request's Accept-Encoding (q-values), among these.
    bool compression = true;                             // compress eligible responses
    std::size_t compression_min_size = 1024;             // smaller bodies are sent as they are
    std::string compression_encodings = "zstd,br,gzip";  // offered codings, best first (gzip, br, zstd, deflate)
    /// Media types compressed (`type/*` wildcards allowed); already-compressed types never are.
    std::string compression_types =
        "text/*,application/json,application/*+json,application/x-ndjson,application/javascript,"
        "application/xml,application/*+xml,application/wasm,image/svg+xml";
    unsigned gzip_level = 5;    // 1..9
    unsigned brotli_level = 4;  // 0..11
    unsigned zstd_level = 3;    // 1..19
    bool compress_sse = false;  // compress text/event-stream responses too (flushed per event)

    // Compressed request bodies (Content-Encoding: gzip, br, zstd, deflate) are decoded before validation.
    bool request_decompression = true;            // false: such requests get 415
    std::size_t max_decompressed_body_bytes = 0;  // decoded size cap (413); 0: max_body_bytes
    std::uint32_t max_decompression_ratio = 100;  // decoded/encoded size cap (413) past the first 64 KiB; 0: none

    // Server-Sent Events (slipstream/sse.h).
    std::uint32_t sse_heartbeat_ms = 15'000;  // comment sent on a stream idle this long; 0: none
    /// Streamed responses (slipstream/responder.h): bytes queued for one stream (written, not yet taken by the
    /// client) past which Responder::writable() turns false and the producer pauses; it resumes at half.
    std::size_t stream_high_water_bytes = 1024 * 1024;

    // TLS: on when both files are set (PEM; the certificate file may hold the chain). Reloaded on SIGHUP:
    // new handshakes use the new files, open connections keep theirs. TLS 1.2 and 1.3 only.
    std::string tls_cert_file;
    std::string tls_key_file;
    std::string tls_client_ca_file;                   // when set, clients must present a certificate it signed (mTLS)
    std::uint32_t tls_handshake_timeout_ms = 10'000;  // handshake not finished in time -> close

    // HTTP/2: over TLS through ALPN "h2", and in cleartext with prior knowledge (h2c).
    bool http2 = true;
    std::uint32_t h2_max_concurrent_streams = 100;               // SETTINGS_MAX_CONCURRENT_STREAMS
    std::uint32_t h2_max_header_list_size = 16 * 1024;           // SETTINGS_MAX_HEADER_LIST_SIZE; 431 past it
    std::uint32_t h2_initial_window_size = 1024 * 1024;          // per-stream receive window (request bodies)
    std::uint32_t h2_connection_window_size = 16 * 1024 * 1024;  // connection receive window
    // Flood defences (GOAWAY ENHANCE_YOUR_CALM): token buckets of `burst` refilled at `rate` per second.
    std::uint32_t h2_reset_burst = 1000;  // client RST_STREAM frames (rapid reset, CVE-2023-44487)
    std::uint32_t h2_reset_rate = 33;
    std::uint32_t h2_control_burst = 1000;  // PING, SETTINGS, PRIORITY and empty frames
    std::uint32_t h2_control_rate = 100;
    std::uint32_t h2_max_continuations = 8;  // CONTINUATION frames per header block

    /// Value of the Server header; empty sends none.
    std::string server_header = "slipstream";
    /// Every response carries X-Request-ID: the client's (when valid) or a generated one. Off: the id still
    /// reaches the access log, traces and handlers, but responses do not carry it.
    bool request_id_response = true;
    /// Deadline for in-flight work after a stop signal.
    std::uint32_t drain_timeout_ms = 30'000;

    // Builtin routes; an empty path switches the route off.
    std::string health_path = "/health";    // 200 {"status":"ok"}, no checks
    std::string livez_path = "/livez";      // 200 {"status":"ok"}, no checks
    std::string readyz_path = "/readyz";    // readiness checks; 503 while draining
    std::string metrics_path = "/metrics";  // Prometheus text format
    /// Per-route request counters, latency histograms and byte counters (off: /metrics keeps the connection,
    /// parse-error, timeout and process metrics; for a lower per-request cost or to bound label cardinality).
    bool request_metrics = true;

    /// Requests no route takes are answered as FastAPI does: 404 {"detail":"Not Found"}, 405
    /// {"detail":"Method Not Allowed"} with Allow, OPTIONS without a route 405 (application/json). Off:
    /// application/problem+json, and OPTIONS answered 204 with Allow. The Python front end turns it on.
    bool fastapi_route_errors = false;
    /// A request that fails its RouteSpec gets 422 application/problem+json (type, title, status, detail and
    /// the same `errors` list) instead of FastAPI's {"detail":[...]}.
    bool validation_problem_json = false;

    // Access log: one JSON line per request, written off the I/O threads.
    bool access_log = true;
    /// File descriptor the access log is written to (1: stdout). Not owned.
    int access_log_fd = 1;
    /// Lines are written at least this often (or once 64 KiB wait): one write() for many requests.
    std::uint32_t access_log_flush_ms = 100;
};

}  // namespace slipstream
