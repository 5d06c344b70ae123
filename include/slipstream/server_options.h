// ServerOptions: every limit and timeout of the engine, with its default.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "slipstream/issued_credentials.h"
#include "slipstream/rate_limit_store.h"

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
    std::uint32_t h2_control_burst =
        1000;  // PING, SETTINGS, PRIORITY, WINDOW_UPDATE (beyond one per DATA) and empty frames
    std::uint32_t h2_control_rate = 100;
    std::uint32_t h2_max_continuations = 8;  // CONTINUATION frames per header block

    /// Asynchronous handlers running at once across the process's I/O threads (a handler counts until it lets
    /// go of its Responder, also after its client left). Past it a request is refused: 503 with Retry-After on
    /// HTTP/1.1, RST_STREAM REFUSED_STREAM on HTTP/2 (slipstream_handlers_refused_total).
    std::size_t max_handlers_in_flight = 10'000;

    /// Value of the Server header; empty sends none.
    std::string server_header = "slipstream";
    /// Every response carries X-Request-ID: the client's (when valid) or a generated one. Off: the id still
    /// reaches the access log, traces and handlers, but responses do not carry it.
    bool request_id_response = true;
    /// Deadline for in-flight work after a stop signal.
    std::uint32_t drain_timeout_ms = 30'000;

    // Slow and greedy clients, and a port already in use.
    /// An HTTP/1.1 request body must arrive at this many bytes per second on average once `body_timeout_ms` has
    /// passed since its first byte was awaited (each byte buys 1/rate s), else 408 and close: a body trickled
    /// just inside the inactivity timeout cannot hold a connection for ever. 0: only the inactivity timeout.
    std::uint32_t body_min_rate = 1024;
    /// Output waiting for a client must leave at this many bytes per second on average once `write_timeout_ms`
    /// has passed since it began to wait, else the connection closes (a slow reader). 0: only the inactivity
    /// timeout.
    std::uint32_t write_min_rate = 1024;
    /// Open connections per client address (an IPv4 address, an IPv6 /64), per process; past it a new
    /// connection gets 429 and is closed. 0: no cap (clients behind one NAT or proxy share an address).
    std::size_t max_connections_per_ip = 0;
    /// Share the port with listeners of other processes (SO_REUSEPORT) instead of refusing to start with
    /// "<address>: address already in use" (an old instance left running would serve part of the traffic).
    /// The I/O threads of one server always share their port.
    bool reuse_port = false;

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

    // CORS, answered as Starlette's CORSMiddleware does, in the engine (no handler runs for a preflight). Off
    // while cors_allow_origins and cors_allow_origin_regex are both empty; then no request pays for it. Lists
    // are comma-separated. When on: a preflight (OPTIONS with Origin and Access-Control-Request-Method) is
    // answered before the router, 200 "OK" or 400 "Disallowed CORS origin, method, headers" (the parts refused),
    // with the Access-Control-Allow-* fields; every other answer (handlers, streams, 404/405/422/413, 504) to a
    // request with an Origin gets Access-Control-Allow-Origin ("*", or the origin when it is allowed),
    // -Allow-Credentials and -Expose-Headers as configured, and every answer gets "Origin" added to Vary. A bad
    // value makes the server's constructor (App's) throw std::invalid_argument naming the option.
    std::string cors_allow_origins;          // allowed origins ("https://app.example.com"); "*" allows any
    std::string cors_allow_origin_regex;     // also allowed: origins this RE2 pattern matches in full
    std::string cors_allow_methods = "GET";  // methods a preflight may ask for; "*": DELETE..QUERY
    /// Request headers a preflight may name ("*": any); Accept, Accept-Language, Content-Language and
    /// Content-Type always may.
    std::string cors_allow_headers;
    /// Access-Control-Allow-Credentials: true; with "*" the request's origin is named instead of "*".
    bool cors_allow_credentials = false;
    std::string cors_expose_headers;          // Access-Control-Expose-Headers of actual responses
    bool cors_allow_private_network = false;  // preflights asking for private network access are allowed
    std::uint32_t cors_max_age = 600;         // Access-Control-Max-Age of preflight answers, in seconds

    // Authentication and per-principal rate limits, in the engine after the router (src/server/access_policy).
    // Off while `auth` is "off" and `rate_limit` is empty; then no request pays for them. The probe routes
    // (health, livez, readyz, metrics) and `auth_public_paths` are neither authenticated nor limited. A bad value
    // or file makes the server's constructor (App's) throw std::invalid_argument naming the option.
    /// "off", "optional" (credentials are checked when sent; a request without any is served as anonymous) or
    /// "required" (401 with WWW-Authenticate: Bearer without valid credentials).
    std::string auth = "off";
    /// API keys: `<principal> <key> [<rate>]` lines (`#` comments); the rate, e.g. "1000/m", is the
    /// principal's own limit instead of `rate_limit`. Keys arrive in `api_key_header` or as
    /// `Authorization: Bearer <key>`; only their SHA-256 digests are kept in memory.
    std::string api_keys_file;
    std::string api_key_header = "X-API-Key";
    /// JWTs as `Authorization: Bearer <token>`: a file holding the HS256/384/512 secret (at least 32 bytes), or
    /// a PEM public key (RSA: RS*/PS*, EC: ES* of its curve, Ed25519/Ed448: EdDSA). The algorithm follows from
    /// the key, never from the token; `exp` is required and `sub` is the principal.
    std::string jwt_secret_file;
    std::string jwt_public_key_file;
    std::string jwt_issuer;                // when set, `iss` must equal it
    std::string jwt_audience;              // when set, `aud` must contain it; when empty, tokens with `aud` are refused
    std::uint32_t jwt_leeway_ms = 60'000;  // clock skew allowed on exp, nbf and iat (whole seconds count)
    /// Route templates served without credentials or limits, comma-separated ("/docs,/openapi.json").
    std::string auth_public_paths;
    /// OAuth 2.0 Protected Resource Metadata (RFC 9728 §5.1): when set, the URL of this server's metadata document,
    /// named in each 401's `WWW-Authenticate: Bearer resource_metadata="<url>"` so an OAuth client finds its
    /// authorization server (the MCP authorization spec). An absolute http(s) URL without '"', '\' or controls.
    /// App::auth_resource_metadata sets it after construction (mcp::Server::mount does).
    std::string auth_resource_metadata;
    /// Requests per period for each principal (anonymous requests: each client address, an IPv6 client by its
    /// /64): "100/s", "6000/m", "10/5s", "100000/d"; empty: no limit. Past it: 429 with Retry-After and
    /// RateLimit-Limit/-Remaining/-Reset. Counted per process (each of `--workers N` counts on its own). A key
    /// with a rate of its own (api_keys_file) is limited by that rate even when this is empty.
    std::string rate_limit;
    std::uint64_t rate_limit_burst = 0;         // requests a full bucket allows at once; 0: the rate's count
    std::size_t rate_limit_max_keys = 100'000;  // principals and addresses remembered (least recently used go)
    /// Buckets shared by every process and replica (the app's `--rate-limit-store store`: PostgreSQL); null: each
    /// process counts on its own. Each decision is the store's (one round trip, batched with the other requests
    /// waiting); a key the store refused is refused in this process until its retry time without asking again.
    std::shared_ptr<RateLimitStore> rate_limit_store;
    /// When the store cannot answer: "local" (this process's own buckets decide), "open" (allowed) or "closed"
    /// (503 with Retry-After: 1). Counted in slipstream_rate_limit_store_errors_total either way.
    std::string rate_limit_store_failure = "local";
    std::uint32_t rate_limit_store_batch = 256;    // keys in one statement to the store
    std::uint32_t rate_limit_store_in_flight = 4;  // statements at once per process; later requests wait for one
    /// After a failed statement, requests within this long get the failure mode without asking the store; 0: every
    /// request asks.
    std::uint32_t rate_limit_store_retry_ms = 1'000;
    /// Tokens issued at runtime (the app's `--tokens`: scoped API tokens in the store); null: none. A credential
    /// starting with its prefix() is looked up there only. Counts as a credential source for `auth`.
    std::shared_ptr<const IssuedCredentials> issued_credentials;

    // Access log: one JSON line per request, written off the I/O threads.
    bool access_log = true;
    /// File descriptor the access log is written to (1: stdout). Not owned.
    int access_log_fd = 1;
    /// Lines are written at least this often (or once 64 KiB wait): one write() for many requests.
    std::uint32_t access_log_flush_ms = 100;
};

}  // namespace slipstream
