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

    /// Value of the Server header; empty sends none.
    std::string server_header = "slipstream";
    /// Deadline for in-flight work after a stop signal.
    std::uint32_t drain_timeout_ms = 30'000;

    // Builtin routes; an empty path switches the route off.
    std::string health_path = "/health";    // 200 {"status":"ok"}, no checks
    std::string livez_path = "/livez";      // 200 {"status":"ok"}, no checks
    std::string readyz_path = "/readyz";    // readiness checks; 503 while draining
    std::string metrics_path = "/metrics";  // Prometheus text format

    // Access log: one JSON line per request, written off the I/O threads.
    bool access_log = true;
    /// File descriptor the access log is written to (1: stdout). Not owned.
    int access_log_fd = 1;
};

}  // namespace slipstream
