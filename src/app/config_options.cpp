// The option table: every ServerOptions field and RunSettings field, declared once.
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>

#include "app/registry.h"
#include "policy/cors/cors_policy.h"
#include "policy/ratelimit/rate.h"
#include "server/coding/compression_policy.h"

namespace slipstream::app {
namespace {

constexpr std::uint64_t kKiB = 1024;
constexpr std::uint64_t kMiB = 1024 * kKiB;
constexpr std::uint64_t kGiB = 1024 * kMiB;
constexpr std::uint64_t kDay = 24 * 3'600'000;  // milliseconds

struct Access {
    std::function<void(Config&, const OptionValue&)> set;
    std::function<OptionValue(const Config&)> get;
};

// Accessors into Config::server / Config::run by member pointer.
template <typename Part, typename T>
Access number(Part Config::*part, T Part::*field) {
    return {[=](Config& c, const OptionValue& v) { (c.*part).*field = static_cast<T>(std::get<std::uint64_t>(v)); },
            [=](const Config& c) { return OptionValue{static_cast<std::uint64_t>((c.*part).*field)}; }};
}

template <typename Part>
Access flag(Part Config::*part, bool Part::*field) {
    return {[=](Config& c, const OptionValue& v) { (c.*part).*field = std::get<bool>(v); },
            [=](const Config& c) { return OptionValue{(c.*part).*field}; }};
}

template <typename Part>
Access text(Part Config::*part, std::string Part::*field) {
    return {[=](Config& c, const OptionValue& v) { (c.*part).*field = std::get<std::string>(v); },
            [=](const Config& c) { return OptionValue{(c.*part).*field}; }};
}

// "off" on the outside, an empty path inside.
Access route(std::string ServerOptions::*field) {
    return {
        [=](Config& c, const OptionValue& v) {
            const auto& s = std::get<std::string>(v);
            c.server.*field = s == "off" ? std::string() : s;
        },
        [=](const Config& c) { return OptionValue{(c.server.*field).empty() ? std::string("off") : c.server.*field}; }};
}

Access log_level() {
    return {[](Config& c, const OptionValue& v) {
                // The choice list below holds only names parse_log_level accepts.
                if (!base::parse_log_level(std::get<std::string>(v), &c.run.log_level))
                    throw std::logic_error("log-level choice unknown to base::parse_log_level");
            },
            [](const Config& c) { return OptionValue{std::string(base::log_level_name(c.run.log_level))}; }};
}

Access config_path() {
    return {[](Config& c, const OptionValue& v) { c.config_path = std::get<std::string>(v); },
            [](const Config& c) { return OptionValue{c.config_path}; }};
}

std::string not_empty(std::string_view s) {
    return s.empty() ? "must not be empty" : "";
}

std::string header_value(std::string_view s) {
    for (char c : s)
        if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) return "must not contain control characters";
    return "";
}

// The server's own parser decides: `build` runs on options holding only this value, and what it throws becomes the
// message, after its "<field>: " prefix (the same text a C++ caller gets from the constructor).
template <typename Build>
std::string refusal_of(std::string_view s, std::string ServerOptions::*field, Build build) {
    ServerOptions o;
    o.*field = std::string(s);
    try {
        build(o);
    } catch (const std::invalid_argument& e) {
        std::string_view why = e.what();
        std::size_t colon = why.find(": ");
        return std::string(colon == std::string_view::npos ? why : why.substr(colon + 2));
    }
    return "";
}

std::string compression_list(std::string_view s, std::string ServerOptions::*field) {
    return refusal_of(s, field, [](const ServerOptions& o) { server::CompressionPolicy policy(o); });
}

std::string compression_encodings(std::string_view s) {
    return compression_list(s, &ServerOptions::compression_encodings);
}

std::string compression_types(std::string_view s) {
    return compression_list(s, &ServerOptions::compression_types);
}

std::string cors_check(std::string_view s, std::string ServerOptions::*field) {
    return refusal_of(s, field, [](const ServerOptions& o) {
        (void)policy::cors::CorsPolicy::compile(o);
        (void)policy::cors::parse_cors_config(o);
    });
}

// The rate limiter's own parser decides: "100/s", "6000/m", "10/5s"...; empty: no limit.
std::string rate_text(std::string_view s) {
    if (s.empty()) return "";
    base::Result<policy::ratelimit::Rate> rate = policy::ratelimit::Rate::parse(s);
    return rate.is_ok() ? "" : rate.status().message();
}

std::string cors_origins(std::string_view s) {
    return cors_check(s, &ServerOptions::cors_allow_origins);
}
std::string cors_origin_regex(std::string_view s) {
    return cors_check(s, &ServerOptions::cors_allow_origin_regex);
}
std::string cors_methods(std::string_view s) {
    return cors_check(s, &ServerOptions::cors_allow_methods);
}
std::string cors_headers(std::string_view s) {
    return cors_check(s, &ServerOptions::cors_allow_headers);
}
std::string cors_expose_headers(std::string_view s) {
    return cors_check(s, &ServerOptions::cors_expose_headers);
}

std::string route_path(std::string_view s) {
    if (s == "off") return "";
    if (s.empty() || s[0] != '/') return "must start with '/' or be 'off'";
    for (char c : s)
        if (static_cast<unsigned char>(c) <= 0x20 || c == 0x7f) return "must not contain spaces or control characters";
    return "";
}

Option make(OptionKind kind, std::string name, OptionGroup group, std::string value_name, std::string help,
            Access access, std::uint64_t min = 0, std::uint64_t max = std::numeric_limits<std::uint64_t>::max()) {
    Option o;
    o.name = std::move(name);
    o.kind = kind;
    o.group = group;
    o.value_name = std::move(value_name);
    o.help = std::move(help);
    o.min = min;
    o.max = max;
    o.set = std::move(access.set);
    o.get = std::move(access.get);
    return o;
}

Option with_check(Option o, std::string (*check)(std::string_view)) {
    o.check = check;
    return o;
}

}  // namespace

Registry make_config_registry() {
    using K = OptionKind;
    using G = OptionGroup;
    const auto srv = &Config::server;
    const auto run = &Config::run;
    Registry r;

    Option config =
        make(K::kString, "config", G::kGeneral, "FILE", "read options from FILE (key = value lines)", config_path());
    config.in_file = false;
    r.add(std::move(config));
    r.add(make(K::kInteger, "threads", G::kGeneral, "N", "I/O threads; 0 means one per core",
               number(srv, &ServerOptions::threads), 0, 1024));
    r.add(make(K::kBool, "io-uring", G::kGeneral, "",
               "I/O threads use io_uring instead of epoll (plain connections: one system call per request)",
               flag(srv, &ServerOptions::io_uring)));
    r.add(make(K::kBool, "request-id-response", G::kGeneral, "",
               "send X-Request-ID (the client's or a generated one) on every response; off: logs and handlers only",
               flag(srv, &ServerOptions::request_id_response)));
    r.add(with_check(make(K::kString, "server-header", G::kGeneral, "TEXT",
                          "value of the Server header; empty sends none", text(srv, &ServerOptions::server_header)),
                     header_value));

    r.add(
        with_check(make(K::kString, "host", G::kListen, "HOST", "address to listen on", text(run, &RunSettings::host)),
                   not_empty));
    r.add(make(K::kInteger, "port", G::kListen, "PORT", "TCP port; 0 picks a free one", number(run, &RunSettings::port),
               0, 65535));
    r.add(make(K::kString, "unix", G::kListen, "PATH", "listen on this Unix socket instead of host:port",
               text(run, &RunSettings::unix_path)));

    r.add(make(K::kSize, "max-request-line", G::kLimits, "SIZE", "longest request line; 414 past it",
               number(srv, &ServerOptions::max_request_line), 16, kMiB));
    r.add(make(K::kSize, "max-header-bytes", G::kLimits, "SIZE", "largest request head; 431 past it",
               number(srv, &ServerOptions::max_header_bytes), 64, 16 * kMiB));
    r.add(make(K::kInteger, "max-headers", G::kLimits, "N", "most request header fields; 431 past it",
               number(srv, &ServerOptions::max_headers), 1, 10'000));
    r.add(make(K::kSize, "max-body-bytes", G::kLimits, "SIZE", "largest request body; 413 past it",
               number(srv, &ServerOptions::max_body_bytes), 0, 64 * kGiB));

    r.add(make(K::kDuration, "header-timeout", G::kTimeouts, "DURATION", "whole request head; 408 past it",
               number(srv, &ServerOptions::header_timeout_ms), 1, kDay));
    r.add(make(K::kDuration, "body-timeout", G::kTimeouts, "DURATION", "body inactivity; 408 past it",
               number(srv, &ServerOptions::body_timeout_ms), 1, kDay));
    r.add(make(K::kDuration, "keepalive-timeout", G::kTimeouts, "DURATION", "idle time between requests; then close",
               number(srv, &ServerOptions::keepalive_timeout_ms), 1, kDay));
    r.add(make(K::kDuration, "write-timeout", G::kTimeouts, "DURATION", "client stopped reading; then close",
               number(srv, &ServerOptions::write_timeout_ms), 1, kDay));
    r.add(make(K::kDuration, "handler-timeout", G::kTimeouts, "DURATION", "no answer from the handler; 504 past it",
               number(srv, &ServerOptions::handler_timeout_ms), 1, kDay));
    r.add(make(K::kDuration, "drain-timeout", G::kTimeouts, "DURATION",
               "deadline for in-flight work after a stop signal", number(srv, &ServerOptions::drain_timeout_ms), 0,
               kDay));

    r.add(make(K::kInteger, "max-connections", G::kConnections, "N", "open connections; past it new ones get 503",
               number(srv, &ServerOptions::max_connections), 1, 10'000'000));
    // Slow and greedy clients, and a port already in use.
    r.add(make(K::kSize, "body-min-rate", G::kTimeouts, "SIZE",
               "bytes/s a request body must average once --body-timeout has passed; 408 below it; 0: off",
               number(srv, &ServerOptions::body_min_rate), 0, kGiB));
    r.add(make(K::kSize, "write-min-rate", G::kTimeouts, "SIZE",
               "bytes/s waiting output must average once --write-timeout has passed; close below it; 0: off",
               number(srv, &ServerOptions::write_min_rate), 0, kGiB));
    r.add(make(K::kInteger, "max-connections-per-ip", G::kConnections, "N",
               "open connections per client address (IPv6: per /64); past it new ones get 429; 0: no cap",
               number(srv, &ServerOptions::max_connections_per_ip), 0, 10'000'000));
    r.add(make(K::kBool, "reuse-port", G::kListen, "",
               "share the port with other processes' listeners (SO_REUSEPORT); off: a port in use fails the start",
               flag(srv, &ServerOptions::reuse_port)));
    r.add(make(K::kInteger, "max-requests-per-connection", G::kConnections, "N", "then Connection: close",
               number(srv, &ServerOptions::max_requests_per_connection), 1, 1'000'000'000));
    r.add(make(K::kInteger, "max-pipelined", G::kConnections, "N",
               "requests in flight per connection before reading pauses", number(srv, &ServerOptions::max_pipelined), 1,
               65'536));
    r.add(make(K::kSize, "max-output-buffer", G::kConnections, "SIZE",
               "unsent bytes per connection before reading pauses", number(srv, &ServerOptions::max_output_buffer),
               4 * kKiB, kGiB));
    r.add(make(K::kSize, "stream-high-water", G::kConnections, "SIZE",
               "bytes queued for one streamed response before its producer pauses (resumes at half)",
               number(srv, &ServerOptions::stream_high_water_bytes), 4 * kKiB, kGiB));

    Option level = make(K::kChoice, "log-level", G::kLogging, "LEVEL", "least severe message logged", log_level());
    level.choices = {"debug", "info", "warn", "error", "off"};
    r.add(std::move(level));
    r.add(make(K::kBool, "access-log", G::kLogging, "", "write one line per request",
               flag(&Config::server, &ServerOptions::access_log)));
    r.add(make(K::kDuration, "access-log-flush", G::kLogging, "DURATION",
               "write pending access-log lines at least this often", number(srv, &ServerOptions::access_log_flush_ms),
               1, kDay));
    r.add(make(K::kBool, "request-metrics", G::kLogging, "",
               "count requests, latency and bytes per route, method and status in /metrics",
               flag(&Config::server, &ServerOptions::request_metrics)));
    r.add(make(K::kBool, "validation-problem-json", G::kGeneral, "",
               "answer requests that fail validation with 422 application/problem+json, not FastAPI's body",
               flag(&Config::server, &ServerOptions::validation_problem_json)));
    r.add(with_check(make(K::kString, "access-log-path", G::kLogging, "PATH", "access log file; '-' is stdout",
                          text(run, &RunSettings::access_log_path)),
                     not_empty));

    const auto c = G::kCompression;
    r.add(make(K::kBool, "compression", c, "", "compress responses with a coding the client accepts",
               flag(srv, &ServerOptions::compression)));
    r.add(make(K::kSize, "compression-min-size", c, "SIZE", "smaller response bodies are sent uncompressed",
               number(srv, &ServerOptions::compression_min_size), 0, kGiB));
    r.add(with_check(
        make(K::kString, "compression-encodings", c, "LIST", "codings offered, best first (gzip, br, zstd, deflate)",
             text(srv, &ServerOptions::compression_encodings)),
        compression_encodings));
    r.add(with_check(
        make(K::kString, "compression-types", c, "LIST", "media types compressed (type/subtype, type/*, type/*+suffix)",
             text(srv, &ServerOptions::compression_types)),
        compression_types));
    r.add(make(K::kInteger, "gzip-level", c, "N", "gzip (and deflate) level", number(srv, &ServerOptions::gzip_level),
               1, 9));
    r.add(make(K::kInteger, "brotli-level", c, "N", "br quality", number(srv, &ServerOptions::brotli_level), 0, 11));
    r.add(make(K::kInteger, "zstd-level", c, "N", "zstd level", number(srv, &ServerOptions::zstd_level), 1, 19));
    r.add(make(K::kBool, "compress-sse", c, "", "compress event streams too (flushed per event)",
               flag(srv, &ServerOptions::compress_sse)));
    r.add(make(K::kBool, "request-decompression", c, "", "decode request bodies sent with Content-Encoding (else 415)",
               flag(srv, &ServerOptions::request_decompression)));
    r.add(make(K::kSize, "max-decompressed-body-bytes", c, "SIZE",
               "largest decoded request body (413); 0: max-body-bytes",
               number(srv, &ServerOptions::max_decompressed_body_bytes), 0, 64 * kGiB));
    r.add(make(K::kInteger, "max-decompression-ratio", c, "N",
               "largest decoded/encoded size ratio past 64 KiB (413); 0: none",
               number(srv, &ServerOptions::max_decompression_ratio), 0, 1'000'000));
    r.add(make(K::kDuration, "sse-heartbeat", c, "DURATION", "comment sent on an idle event stream; 0 disables",
               number(srv, &ServerOptions::sse_heartbeat_ms), 0, kDay));

    const auto tls = G::kTls;
    r.add(make(K::kString, "tls-cert", tls, "PATH", "certificate chain (PEM); TLS is on when it and --tls-key are set",
               text(srv, &ServerOptions::tls_cert_file)));
    r.add(make(K::kString, "tls-key", tls, "PATH", "private key (PEM) of the certificate",
               text(srv, &ServerOptions::tls_key_file)));
    r.add(make(K::kString, "tls-client-ca", tls, "PATH",
               "CA certificates (PEM); when set, clients must present one (mTLS)",
               text(srv, &ServerOptions::tls_client_ca_file)));
    r.add(make(K::kDuration, "tls-handshake-timeout", tls, "DURATION", "TLS handshake not finished; then close",
               number(srv, &ServerOptions::tls_handshake_timeout_ms), 1, kDay));

    const auto h2 = G::kHttp2;
    constexpr std::uint64_t kMaxWindow = (1u << 31) - 1;
    r.add(make(K::kBool, "http2", h2, "", "serve HTTP/2 (ALPN h2 over TLS, prior knowledge in cleartext)",
               flag(srv, &ServerOptions::http2)));
    r.add(make(K::kInteger, "h2-max-concurrent-streams", h2, "N", "streams open at once per connection",
               number(srv, &ServerOptions::h2_max_concurrent_streams), 1, 1'000'000));
    r.add(make(K::kSize, "h2-max-header-list-size", h2, "SIZE", "request header list (RFC 9113 size); 431 past it",
               number(srv, &ServerOptions::h2_max_header_list_size), kKiB, 16 * kMiB));
    r.add(make(K::kSize, "h2-initial-window-size", h2, "SIZE", "per-stream receive window for request bodies",
               number(srv, &ServerOptions::h2_initial_window_size), 0, kMaxWindow));
    r.add(make(K::kSize, "h2-connection-window-size", h2, "SIZE", "per-connection receive window",
               number(srv, &ServerOptions::h2_connection_window_size), 65'535, kMaxWindow));
    r.add(make(K::kInteger, "h2-reset-burst", h2, "N", "client stream resets allowed at once (rapid reset)",
               number(srv, &ServerOptions::h2_reset_burst), 1, 1'000'000));
    r.add(make(K::kInteger, "h2-reset-rate", h2, "N", "client stream resets allowed per second after the burst",
               number(srv, &ServerOptions::h2_reset_rate), 1, 1'000'000));
    r.add(make(K::kInteger, "h2-control-burst", h2, "N",
               "PING/SETTINGS/PRIORITY/WINDOW_UPDATE/empty frames allowed at once",
               number(srv, &ServerOptions::h2_control_burst), 1, 1'000'000));
    r.add(make(K::kInteger, "h2-control-rate", h2, "N", "such frames allowed per second after the burst",
               number(srv, &ServerOptions::h2_control_rate), 1, 1'000'000));
    r.add(make(K::kInteger, "h2-max-continuations", h2, "N", "CONTINUATION frames per header block",
               number(srv, &ServerOptions::h2_max_continuations), 1, 1'000));

    r.add(make(K::kInteger, "max-handlers-in-flight", G::kLimits, "N",
               "asynchronous handlers running at once; past it 503 (HTTP/2: REFUSED_STREAM)",
               number(srv, &ServerOptions::max_handlers_in_flight), 1, 10'000'000));

    const auto ws = G::kWebSocket;
    r.add(make(K::kSize, "ws-max-message-bytes", ws, "SIZE", "largest message after reassembly and inflation (1009)",
               number(srv, &ServerOptions::ws_max_message_bytes), 1, kGiB));
    r.add(make(K::kSize, "ws-max-frame-bytes", ws, "SIZE", "largest frame payload (1009)",
               number(srv, &ServerOptions::ws_max_frame_bytes), 1, kGiB));
    r.add(make(K::kSize, "ws-max-send-queue-bytes", ws, "SIZE", "unsent bytes per connection before sends are refused",
               number(srv, &ServerOptions::ws_max_send_queue_bytes), 1, kGiB));
    r.add(make(K::kBool, "ws-deflate", ws, "", "accept permessage-deflate offers",
               flag(srv, &ServerOptions::ws_deflate)));
    r.add(make(K::kDuration, "ws-ping-interval", ws, "DURATION", "server ping after this much silence; 0: never",
               number(srv, &ServerOptions::ws_ping_interval_ms), 0, kDay));
    r.add(make(K::kDuration, "ws-pong-timeout", ws, "DURATION", "no pong in time: the connection is dropped",
               number(srv, &ServerOptions::ws_pong_timeout_ms), 1, kDay));
    r.add(make(K::kDuration, "ws-close-timeout", ws, "DURATION", "wait for the client's close frame, then drop",
               number(srv, &ServerOptions::ws_close_timeout_ms), 1, kDay));

    const auto cors = G::kCors;
    r.add(with_check(make(K::kString, "cors-allow-origins", cors, "LIST",
                          "origins allowed cross-origin requests ('*': any); CORS is on when this or "
                          "--cors-allow-origin-regex is set",
                          text(srv, &ServerOptions::cors_allow_origins)),
                     cors_origins));
    r.add(with_check(make(K::kString, "cors-allow-origin-regex", cors, "REGEX",
                          "also allowed: origins this RE2 pattern matches in full",
                          text(srv, &ServerOptions::cors_allow_origin_regex)),
                     cors_origin_regex));
    r.add(with_check(make(K::kString, "cors-allow-methods", cors, "LIST", "methods a preflight may ask for ('*': all)",
                          text(srv, &ServerOptions::cors_allow_methods)),
                     cors_methods));
    r.add(with_check(make(K::kString, "cors-allow-headers", cors, "LIST",
                          "request headers a preflight may name ('*': any); Accept, Accept-Language, "
                          "Content-Language and Content-Type always may",
                          text(srv, &ServerOptions::cors_allow_headers)),
                     cors_headers));
    r.add(make(K::kBool, "cors-allow-credentials", cors, "",
               "send Access-Control-Allow-Credentials: true (a '*' origin is then answered with the origin)",
               flag(srv, &ServerOptions::cors_allow_credentials)));
    r.add(with_check(make(K::kString, "cors-expose-headers", cors, "LIST",
                          "response headers scripts may read (Access-Control-Expose-Headers)",
                          text(srv, &ServerOptions::cors_expose_headers)),
                     cors_expose_headers));
    r.add(make(K::kBool, "cors-allow-private-network", cors, "", "allow preflights asking for private network access",
               flag(srv, &ServerOptions::cors_allow_private_network)));
    r.add(make(K::kInteger, "cors-max-age", cors, "SECONDS", "how long browsers may keep a preflight's answer",
               number(srv, &ServerOptions::cors_max_age), 0, std::numeric_limits<std::uint32_t>::max()));

    const auto access = G::kAccess;
    Option auth = make(K::kChoice, "auth", access, "MODE",
                       "authenticate requests: off, optional (checked when sent) or required (401 without)",
                       text(srv, &ServerOptions::auth));
    auth.choices = {"off", "optional", "required"};
    r.add(std::move(auth));
    r.add(make(K::kString, "api-keys-file", access, "PATH",
               "API keys: '<principal> <key> [<rate>]' lines; only their SHA-256 digests are kept",
               text(srv, &ServerOptions::api_keys_file)));
    r.add(with_check(make(K::kString, "api-key-header", access, "NAME",
                          "request field carrying an API key (Authorization: Bearer <key> works too)",
                          text(srv, &ServerOptions::api_key_header)),
                     not_empty));
    r.add(make(K::kString, "jwt-secret-file", access, "PATH", "file holding the HS256/384/512 secret of JWTs",
               text(srv, &ServerOptions::jwt_secret_file)));
    r.add(make(K::kString, "jwt-public-key-file", access, "PATH",
               "PEM public key of JWTs (RSA, EC or Ed25519/Ed448; the algorithm follows from the key)",
               text(srv, &ServerOptions::jwt_public_key_file)));
    r.add(make(K::kString, "jwt-issuer", access, "ISS", "when set, a JWT's iss must equal it",
               text(srv, &ServerOptions::jwt_issuer)));
    r.add(make(K::kString, "jwt-audience", access, "AUD", "when set, a JWT's aud must contain it",
               text(srv, &ServerOptions::jwt_audience)));
    r.add(make(K::kDuration, "jwt-leeway", access, "DURATION", "clock skew allowed on exp, nbf and iat",
               number(srv, &ServerOptions::jwt_leeway_ms), 0, kDay));
    r.add(make(K::kString, "auth-public-paths", access, "LIST",
               "route templates served without credentials or rate limits (the probes always are)",
               text(srv, &ServerOptions::auth_public_paths)));
    r.add(with_check(make(K::kString, "rate-limit", access, "RATE",
                          "requests per principal (or client address) and period: 100/s, 6000/m, 10/5s; "
                          "429 past it",
                          text(srv, &ServerOptions::rate_limit)),
                     rate_text));
    r.add(make(K::kInteger, "rate-limit-burst", access, "N", "requests a full bucket allows at once; 0: the rate's",
               number(srv, &ServerOptions::rate_limit_burst), 0, 1'000'000'000));
    r.add(make(K::kInteger, "rate-limit-max-keys", access, "N",
               "principals and addresses remembered (least recently used forgotten)",
               number(srv, &ServerOptions::rate_limit_max_keys), 1, 1'000'000'000));

    const std::pair<const char*, std::string ServerOptions::*> routes[] = {{"health", &ServerOptions::health_path},
                                                                           {"livez", &ServerOptions::livez_path},
                                                                           {"readyz", &ServerOptions::readyz_path},
                                                                           {"metrics", &ServerOptions::metrics_path}};
    for (const auto& [what, field] : routes)
        r.add(with_check(make(K::kString, std::string(what) + "-path", G::kBuiltinRoutes, "PATH",
                              std::string("path of the builtin ") + what + " route; 'off' disables it", route(field)),
                         route_path));
    return r;
}

}  // namespace slipstream::app
