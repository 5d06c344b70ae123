// The option table: every ServerOptions field and RunSettings field, declared once.
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "app/registry.h"
#include "policy/cors/cors_policy.h"
#include "policy/ratelimit/rate.h"
#include "server/coding/compression_policy.h"
#include "store/database/database.h"

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

// The store's own parser decides which schemes are known.
std::string database_url(std::string_view s) {
    if (s.empty()) return "";
    base::Result<store::DatabaseTarget> target = store::parse_database_url(s);
    return target.is_ok() ? "" : target.status().message();
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

constexpr std::uint64_t kNoMax = std::numeric_limits<std::uint64_t>::max();

// How an option's text is parsed: its kind and range, the check of a string, the choices of a choice.
struct Type {
    OptionKind kind;
    std::uint64_t min = 0;
    std::uint64_t max = kNoMax;
    std::string (*check)(std::string_view) = nullptr;
    std::vector<std::string> choices = {};
};

Type boolean() {
    return {OptionKind::kBool};
}
Type integer(std::uint64_t min, std::uint64_t max) {
    return {OptionKind::kInteger, min, max};
}
Type sized(std::uint64_t min, std::uint64_t max) {
    return {OptionKind::kSize, min, max};
}
Type duration(std::uint64_t min, std::uint64_t max) {
    return {OptionKind::kDuration, min, max};
}
Type textual(std::string (*check)(std::string_view) = nullptr) {
    return {OptionKind::kString, 0, kNoMax, check};
}
Type choice(std::vector<std::string> choices) {
    return {OptionKind::kChoice, 0, kNoMax, nullptr, std::move(choices)};
}

// One row of the table: everything an Option holds.
struct Row {
    const char* name;
    OptionGroup group;
    const char* value_name;
    const char* help;
    Type type;
    Access access;
    bool in_file = true;
};

Option option_of(Row&& row) {
    Option o;
    o.name = row.name;
    o.kind = row.type.kind;
    o.group = row.group;
    o.value_name = row.value_name;
    o.help = row.help;
    o.min = row.type.min;
    o.max = row.type.max;
    o.choices = std::move(row.type.choices);
    if (row.type.check != nullptr) o.check = row.type.check;
    o.in_file = row.in_file;
    o.set = std::move(row.access.set);
    o.get = std::move(row.access.get);
    return o;
}

}  // namespace

Registry make_config_registry() {
    using G = OptionGroup;
    const auto srv = &Config::server;
    const auto run = &Config::run;
    const auto db = &Config::database;
    const auto sessions = &Config::sessions;
    using S = ServerOptions;
    using D = DatabaseSettings;
    using SS = SessionSettings;
    const auto decide = &Config::decide;
    using DS = DecideSettings;
    const auto model = &Config::model;
    using MS = ModelSettings;
    const auto llm = &Config::llm_proxy;
    using LP = LlmProxySettings;
    const auto shared = &Config::shared;
    using SH = SharedStateSettings;
    constexpr std::uint64_t kMaxWindow = (1u << 31) - 1;

    // In --help order within each group.
    Row rows[] = {
        {"config", G::kGeneral, "FILE", "read options from FILE (key = value lines)", textual(), config_path(), false},
        {"threads", G::kGeneral, "N", "I/O threads; 0 means one per core", integer(0, 1024), number(srv, &S::threads)},
        {"io-uring", G::kGeneral, "",
         "I/O threads use io_uring instead of epoll (plain connections: one system call per request)", boolean(),
         flag(srv, &S::io_uring)},
        {"request-id-response", G::kGeneral, "",
         "send X-Request-ID (the client's or a generated one) on every response; off: logs and handlers only",
         boolean(), flag(srv, &S::request_id_response)},
        {"server-header", G::kGeneral, "TEXT", "value of the Server header; empty sends none", textual(header_value),
         text(srv, &S::server_header)},

        {"host", G::kListen, "HOST", "address to listen on", textual(not_empty), text(run, &RunSettings::host)},
        {"port", G::kListen, "PORT", "TCP port; 0 picks a free one", integer(0, 65535),
         number(run, &RunSettings::port)},
        {"unix", G::kListen, "PATH", "listen on this Unix socket instead of host:port", textual(),
         text(run, &RunSettings::unix_path)},

        {"max-request-line", G::kLimits, "SIZE", "longest request line; 414 past it", sized(16, kMiB),
         number(srv, &S::max_request_line)},
        {"max-header-bytes", G::kLimits, "SIZE", "largest request head; 431 past it", sized(64, 16 * kMiB),
         number(srv, &S::max_header_bytes)},
        {"max-headers", G::kLimits, "N", "most request header fields; 431 past it", integer(1, 10'000),
         number(srv, &S::max_headers)},
        {"max-body-bytes", G::kLimits, "SIZE", "largest request body; 413 past it", sized(0, 64 * kGiB),
         number(srv, &S::max_body_bytes)},

        {"header-timeout", G::kTimeouts, "DURATION", "whole request head; 408 past it", duration(1, kDay),
         number(srv, &S::header_timeout_ms)},
        {"body-timeout", G::kTimeouts, "DURATION", "body inactivity; 408 past it", duration(1, kDay),
         number(srv, &S::body_timeout_ms)},
        {"keepalive-timeout", G::kTimeouts, "DURATION", "idle time between requests; then close", duration(1, kDay),
         number(srv, &S::keepalive_timeout_ms)},
        {"write-timeout", G::kTimeouts, "DURATION", "client stopped reading; then close", duration(1, kDay),
         number(srv, &S::write_timeout_ms)},
        {"handler-timeout", G::kTimeouts, "DURATION", "no answer from the handler; 504 past it", duration(1, kDay),
         number(srv, &S::handler_timeout_ms)},
        {"drain-timeout", G::kTimeouts, "DURATION", "deadline for in-flight work after a stop signal",
         duration(0, kDay), number(srv, &S::drain_timeout_ms)},

        {"max-connections", G::kConnections, "N", "open connections; past it new ones get 503", integer(1, 10'000'000),
         number(srv, &S::max_connections)},
        // Slow and greedy clients, and a port already in use.
        {"body-min-rate", G::kTimeouts, "SIZE",
         "bytes/s a request body must average once --body-timeout has passed; 408 below it; 0: off", sized(0, kGiB),
         number(srv, &S::body_min_rate)},
        {"write-min-rate", G::kTimeouts, "SIZE",
         "bytes/s waiting output must average once --write-timeout has passed; close below it; 0: off", sized(0, kGiB),
         number(srv, &S::write_min_rate)},
        {"max-connections-per-ip", G::kConnections, "N",
         "open connections per client address (IPv6: per /64); past it new ones get 429; 0: no cap",
         integer(0, 10'000'000), number(srv, &S::max_connections_per_ip)},
        {"reuse-port", G::kListen, "",
         "share the port with other processes' listeners (SO_REUSEPORT); off: a port in use fails the start", boolean(),
         flag(srv, &S::reuse_port)},
        {"max-requests-per-connection", G::kConnections, "N", "then Connection: close", integer(1, 1'000'000'000),
         number(srv, &S::max_requests_per_connection)},
        {"max-pipelined", G::kConnections, "N", "requests in flight per connection before reading pauses",
         integer(1, 65'536), number(srv, &S::max_pipelined)},
        {"max-output-buffer", G::kConnections, "SIZE", "unsent bytes per connection before reading pauses",
         sized(4 * kKiB, kGiB), number(srv, &S::max_output_buffer)},
        {"stream-high-water", G::kConnections, "SIZE",
         "bytes queued for one streamed response before its producer pauses (resumes at half)", sized(4 * kKiB, kGiB),
         number(srv, &S::stream_high_water_bytes)},

        {"log-level", G::kLogging, "LEVEL", "least severe message logged",
         choice({"debug", "info", "warn", "error", "off"}), log_level()},
        {"log-format", G::kLogging, "FORMAT",
         "log lines: auto (coloured on a terminal, text otherwise), text, color, json (one object per line)",
         choice({"auto", "text", "color", "json"}), text(run, &RunSettings::log_format)},
        {"access-log", G::kLogging, "", "write one line per request", boolean(), flag(srv, &S::access_log)},
        {"access-log-flush", G::kLogging, "DURATION", "write pending access-log lines at least this often",
         duration(1, kDay), number(srv, &S::access_log_flush_ms)},
        {"request-metrics", G::kLogging, "",
         "count requests, latency and bytes per route, method and status in /metrics", boolean(),
         flag(srv, &S::request_metrics)},
        {"validation-problem-json", G::kGeneral, "",
         "answer requests that fail validation with 422 application/problem+json, not FastAPI's body", boolean(),
         flag(srv, &S::validation_problem_json)},
        {"access-log-path", G::kLogging, "PATH", "access log file; '-' is stdout", textual(not_empty),
         text(run, &RunSettings::access_log_path)},

        {"compression", G::kCompression, "", "compress responses with a coding the client accepts", boolean(),
         flag(srv, &S::compression)},
        {"compression-min-size", G::kCompression, "SIZE", "smaller response bodies are sent uncompressed",
         sized(0, kGiB), number(srv, &S::compression_min_size)},
        {"compression-encodings", G::kCompression, "LIST", "codings offered, best first (gzip, br, zstd, deflate)",
         textual(compression_encodings), text(srv, &S::compression_encodings)},
        {"compression-types", G::kCompression, "LIST", "media types compressed (type/subtype, type/*, type/*+suffix)",
         textual(compression_types), text(srv, &S::compression_types)},
        {"gzip-level", G::kCompression, "N", "gzip (and deflate) level", integer(1, 9), number(srv, &S::gzip_level)},
        {"brotli-level", G::kCompression, "N", "br quality", integer(0, 11), number(srv, &S::brotli_level)},
        {"zstd-level", G::kCompression, "N", "zstd level", integer(1, 19), number(srv, &S::zstd_level)},
        {"compress-sse", G::kCompression, "", "compress event streams too (flushed per event)", boolean(),
         flag(srv, &S::compress_sse)},
        {"request-decompression", G::kCompression, "", "decode request bodies sent with Content-Encoding (else 415)",
         boolean(), flag(srv, &S::request_decompression)},
        {"max-decompressed-body-bytes", G::kCompression, "SIZE",
         "largest decoded request body (413); 0: max-body-bytes", sized(0, 64 * kGiB),
         number(srv, &S::max_decompressed_body_bytes)},
        {"max-decompression-ratio", G::kCompression, "N",
         "largest decoded/encoded size ratio past 64 KiB (413); 0: none", integer(0, 1'000'000),
         number(srv, &S::max_decompression_ratio)},
        {"sse-heartbeat", G::kCompression, "DURATION", "comment sent on an idle event stream; 0 disables",
         duration(0, kDay), number(srv, &S::sse_heartbeat_ms)},

        {"tls-cert", G::kTls, "PATH", "certificate chain (PEM); TLS is on when it and --tls-key are set", textual(),
         text(srv, &S::tls_cert_file)},
        {"tls-key", G::kTls, "PATH", "private key (PEM) of the certificate", textual(), text(srv, &S::tls_key_file)},
        {"tls-client-ca", G::kTls, "PATH", "CA certificates (PEM); when set, clients must present one (mTLS)",
         textual(), text(srv, &S::tls_client_ca_file)},
        {"tls-handshake-timeout", G::kTls, "DURATION", "TLS handshake not finished; then close", duration(1, kDay),
         number(srv, &S::tls_handshake_timeout_ms)},

        {"http2", G::kHttp2, "", "serve HTTP/2 (ALPN h2 over TLS, prior knowledge in cleartext)", boolean(),
         flag(srv, &S::http2)},
        {"h2-max-concurrent-streams", G::kHttp2, "N", "streams open at once per connection", integer(1, 1'000'000),
         number(srv, &S::h2_max_concurrent_streams)},
        {"h2-max-header-list-size", G::kHttp2, "SIZE", "request header list (RFC 9113 size); 431 past it",
         sized(kKiB, 16 * kMiB), number(srv, &S::h2_max_header_list_size)},
        {"h2-initial-window-size", G::kHttp2, "SIZE", "per-stream receive window for request bodies",
         sized(0, kMaxWindow), number(srv, &S::h2_initial_window_size)},
        {"h2-connection-window-size", G::kHttp2, "SIZE", "per-connection receive window", sized(65'535, kMaxWindow),
         number(srv, &S::h2_connection_window_size)},
        {"h2-reset-burst", G::kHttp2, "N", "client stream resets allowed at once (rapid reset)", integer(1, 1'000'000),
         number(srv, &S::h2_reset_burst)},
        {"h2-reset-rate", G::kHttp2, "N", "client stream resets allowed per second after the burst",
         integer(1, 1'000'000), number(srv, &S::h2_reset_rate)},
        {"h2-control-burst", G::kHttp2, "N", "PING/SETTINGS/PRIORITY/WINDOW_UPDATE/empty frames allowed at once",
         integer(1, 1'000'000), number(srv, &S::h2_control_burst)},
        {"h2-control-rate", G::kHttp2, "N", "such frames allowed per second after the burst", integer(1, 1'000'000),
         number(srv, &S::h2_control_rate)},
        {"h2-max-continuations", G::kHttp2, "N", "CONTINUATION frames per header block", integer(1, 1'000),
         number(srv, &S::h2_max_continuations)},

        {"max-handlers-in-flight", G::kLimits, "N",
         "asynchronous handlers running at once; past it 503 (HTTP/2: REFUSED_STREAM)", integer(1, 10'000'000),
         number(srv, &S::max_handlers_in_flight)},

        {"ws-max-message-bytes", G::kWebSocket, "SIZE", "largest message after reassembly and inflation (1009)",
         sized(1, kGiB), number(srv, &S::ws_max_message_bytes)},
        {"ws-max-frame-bytes", G::kWebSocket, "SIZE", "largest frame payload (1009)", sized(1, kGiB),
         number(srv, &S::ws_max_frame_bytes)},
        {"ws-max-send-queue-bytes", G::kWebSocket, "SIZE", "unsent bytes per connection before sends are refused",
         sized(1, kGiB), number(srv, &S::ws_max_send_queue_bytes)},
        {"ws-deflate", G::kWebSocket, "", "accept permessage-deflate offers", boolean(), flag(srv, &S::ws_deflate)},
        {"ws-ping-interval", G::kWebSocket, "DURATION", "server ping after this much silence; 0: never",
         duration(0, kDay), number(srv, &S::ws_ping_interval_ms)},
        {"ws-pong-timeout", G::kWebSocket, "DURATION", "no pong in time: the connection is dropped", duration(1, kDay),
         number(srv, &S::ws_pong_timeout_ms)},
        {"ws-close-timeout", G::kWebSocket, "DURATION", "wait for the client's close frame, then drop",
         duration(1, kDay), number(srv, &S::ws_close_timeout_ms)},

        {"cors-allow-origins", G::kCors, "LIST",
         "origins allowed cross-origin requests ('*': any); CORS is on when this or "
         "--cors-allow-origin-regex is set",
         textual(cors_origins), text(srv, &S::cors_allow_origins)},
        {"cors-allow-origin-regex", G::kCors, "REGEX", "also allowed: origins this RE2 pattern matches in full",
         textual(cors_origin_regex), text(srv, &S::cors_allow_origin_regex)},
        {"cors-allow-methods", G::kCors, "LIST", "methods a preflight may ask for ('*': all)", textual(cors_methods),
         text(srv, &S::cors_allow_methods)},
        {"cors-allow-headers", G::kCors, "LIST",
         "request headers a preflight may name ('*': any); Accept, Accept-Language, "
         "Content-Language and Content-Type always may",
         textual(cors_headers), text(srv, &S::cors_allow_headers)},
        {"cors-allow-credentials", G::kCors, "",
         "send Access-Control-Allow-Credentials: true (a '*' origin is then answered with the origin)", boolean(),
         flag(srv, &S::cors_allow_credentials)},
        {"cors-expose-headers", G::kCors, "LIST", "response headers scripts may read (Access-Control-Expose-Headers)",
         textual(cors_expose_headers), text(srv, &S::cors_expose_headers)},
        {"cors-allow-private-network", G::kCors, "", "allow preflights asking for private network access", boolean(),
         flag(srv, &S::cors_allow_private_network)},
        {"cors-max-age", G::kCors, "SECONDS", "how long browsers may keep a preflight's answer",
         integer(0, std::numeric_limits<std::uint32_t>::max()), number(srv, &S::cors_max_age)},

        {"auth", G::kAccess, "MODE",
         "authenticate requests: off, optional (checked when sent) or required (401 without)",
         choice({"off", "optional", "required"}), text(srv, &S::auth)},
        {"api-keys-file", G::kAccess, "PATH",
         "API keys: '<principal> <key> [<rate>]' lines; only their SHA-256 digests are kept", textual(),
         text(srv, &S::api_keys_file)},
        {"api-key-header", G::kAccess, "NAME",
         "request field carrying an API key (Authorization: Bearer <key> works too)", textual(not_empty),
         text(srv, &S::api_key_header)},
        {"jwt-secret-file", G::kAccess, "PATH", "file holding the HS256/384/512 secret of JWTs", textual(),
         text(srv, &S::jwt_secret_file)},
        {"jwt-public-key-file", G::kAccess, "PATH",
         "PEM public key of JWTs (RSA, EC or Ed25519/Ed448; the algorithm follows from the key)", textual(),
         text(srv, &S::jwt_public_key_file)},
        {"jwt-issuer", G::kAccess, "ISS", "when set, a JWT's iss must equal it", textual(), text(srv, &S::jwt_issuer)},
        {"jwt-audience", G::kAccess, "AUD", "when set, a JWT's aud must contain it", textual(),
         text(srv, &S::jwt_audience)},
        {"jwt-leeway", G::kAccess, "DURATION", "clock skew allowed on exp, nbf and iat", duration(0, kDay),
         number(srv, &S::jwt_leeway_ms)},
        {"auth-public-paths", G::kAccess, "LIST",
         "route templates served without credentials or rate limits (the probes always are)", textual(),
         text(srv, &S::auth_public_paths)},
        {"auth-resource-metadata", G::kAccess, "URL",
         "OAuth protected resource metadata URL named in each 401's WWW-Authenticate (RFC 9728)", textual(),
         text(srv, &S::auth_resource_metadata)},
        {"rate-limit", G::kAccess, "RATE",
         "requests per principal (or client address) and period: 100/s, 6000/m, 10/5s; "
         "429 past it",
         textual(rate_text), text(srv, &S::rate_limit)},
        {"rate-limit-burst", G::kAccess, "N", "requests a full bucket allows at once; 0: the rate's",
         integer(0, 1'000'000'000), number(srv, &S::rate_limit_burst)},
        {"rate-limit-max-keys", G::kAccess, "N", "principals and addresses remembered (least recently used forgotten)",
         integer(1, 1'000'000'000), number(srv, &S::rate_limit_max_keys)},
        {"rate-limit-store", G::kAccess, "WHERE",
         "memory: each process counts on its own; store: buckets shared by every process and replica in --store "
         "(PostgreSQL)",
         choice({"memory", "store"}), text(shared, &SH::rate_limit_store)},
        {"rate-limit-store-failure", G::kAccess, "MODE",
         "when the shared store cannot answer: local (this process's own buckets), open (allow) or closed (503)",
         choice({"local", "open", "closed"}), text(srv, &S::rate_limit_store_failure)},
        {"rate-limit-store-timeout", G::kAccess, "DURATION",
         "one batch's statement to the shared store; then the failure mode", duration(1, 60'000),
         number(shared, &SH::rate_limit_store_timeout_ms)},
        {"rate-limit-store-batch", G::kAccess, "N", "requests decided by one statement to the shared store",
         integer(1, 10'000), number(srv, &S::rate_limit_store_batch)},
        {"rate-limit-store-in-flight", G::kAccess, "N",
         "statements to the shared store at once per process; later requests wait and go in the next batch",
         integer(1, 256), number(srv, &S::rate_limit_store_in_flight)},
        {"rate-limit-store-retry", G::kAccess, "DURATION",
         "after a failed statement, requests within this long get the failure mode without asking; 0: always ask",
         duration(0, 3'600'000), number(srv, &S::rate_limit_store_retry_ms)},
        {"tokens", G::kAccess, "",
         "scoped API tokens issued and revoked at runtime (/admin/tokens), kept as SHA-256 digests in --store "
         "(or tokens.db under --data-dir)",
         boolean(), flag(shared, &SH::tokens)},
        {"admin-token", G::kAccess, "TOKEN",
         "the bootstrap admin credential (sst_..., 16+ characters; prefer SLIPSTREAM_ADMIN_TOKEN to a flag)", textual(),
         text(shared, &SH::admin_token)},
        {"token-refresh", G::kAccess, "DURATION",
         "how often a process reads the token table again: revocations elsewhere take effect within it",
         duration(10, 3'600'000), number(shared, &SH::token_refresh_ms)},
        {"token-max", G::kAccess, "N", "live (unrevoked) tokens; then 409", integer(1, 10'000'000),
         number(shared, &SH::token_max)},
        {"token-max-ttl", G::kAccess, "SECONDS", "the longest expiresIn a token may be issued with",
         integer(1, 100ULL * 366 * 86'400), number(shared, &SH::token_max_ttl_s)},
        {"token-keep-revoked", G::kAccess, "SECONDS",
         "revoked and expired tokens stay listed this long, then their rows are deleted (checked every minute)",
         integer(0, 100ULL * 366 * 86'400), number(shared, &SH::token_keep_revoked_s)},
        {"token-openapi", G::kAccess, "PATH",
         "where GET serves the OpenAPI 3.1 document of the /admin/tokens routes (with --tokens); 'off': not served",
         textual(route_path), text(shared, &SH::token_openapi_path)},

        {"health-path", G::kBuiltinRoutes, "PATH", "path of the builtin health route; 'off' disables it",
         textual(route_path), route(&S::health_path)},
        {"livez-path", G::kBuiltinRoutes, "PATH", "path of the builtin livez route; 'off' disables it",
         textual(route_path), route(&S::livez_path)},
        {"readyz-path", G::kBuiltinRoutes, "PATH", "path of the builtin readyz route; 'off' disables it",
         textual(route_path), route(&S::readyz_path)},
        {"metrics-path", G::kBuiltinRoutes, "PATH", "path of the builtin metrics route; 'off' disables it",
         textual(route_path), route(&S::metrics_path)},

        {"database-url", G::kDatabase, "URL",
         "the application's database: postgresql://... (libpq URI; PG* variables fill the rest), sqlite:///path "
         "or sqlite://:memory:; /readyz answers 503 while it is unreachable",
         textual(database_url), text(db, &D::url)},
        {"database-pool-min", G::kDatabase, "N", "PostgreSQL connections opened at start", integer(0, 10'000),
         number(db, &D::pool_min)},
        {"database-pool-max", G::kDatabase, "N", "PostgreSQL connections at most (SQLite: worker threads, up to 8)",
         integer(1, 10'000), number(db, &D::pool_max)},
        {"database-acquire-timeout", G::kDatabase, "DURATION", "waiting for a free connection; then the query fails",
         duration(1, kDay), number(db, &D::acquire_timeout_ms)},
        {"database-connect-timeout", G::kDatabase, "DURATION", "one connection attempt", duration(1, kDay),
         number(db, &D::connect_timeout_ms)},
        {"database-statement-timeout", G::kDatabase, "DURATION",
         "default deadline of a statement (the server is asked to cancel it); 0: none", duration(0, kDay),
         number(db, &D::statement_timeout_ms)},
        {"database-max-sessions", G::kDatabase, "N", "transactions and listeners held at once", integer(1, 100'000),
         number(db, &D::max_sessions)},
        {"database-statement-cache", G::kDatabase, "N",
         "PostgreSQL statements kept prepared per connection; 0: none (a pooler in transaction mode)",
         integer(0, 100'000), number(db, &D::statement_cache)},

        {"sessions", G::kSessions, "",
         "mount the durable agent session routes (/sessions, /sessions/{id}/events, /sessions/{id}/state)", boolean(),
         flag(sessions, &SS::enabled)},
        {"store", G::kSessions, "URL",
         "where sessions are kept: postgresql://... or sqlite:///path; empty: sqlite under --data-dir",
         textual(database_url), text(sessions, &SS::store_url)},
        {"data-dir", G::kSessions, "DIR", "folder of the embedded session store (sessions.db), created when missing",
         textual(not_empty), text(sessions, &SS::data_dir)},
        {"session-max-events", G::kSessions, "N", "events one session may hold; then 409",
         integer(1, 1'000'000'000'000), number(sessions, &SS::max_events)},
        {"session-max-event-bytes", G::kSessions, "SIZE", "role and content of one event; 413 past it",
         sized(16, 64 * kMiB), number(sessions, &SS::max_event_bytes)},
        {"session-max-state-bytes", G::kSessions, "SIZE", "a session's state document; 413 past it",
         sized(16, 64 * kMiB), number(sessions, &SS::max_state_bytes)},
        {"session-max-per-principal", G::kSessions, "N", "live sessions one principal may own; then 409",
         integer(1, 1'000'000'000), number(sessions, &SS::max_per_principal)},
        {"session-ttl", G::kSessions, "DURATION", "a session's default lifetime after its last write",
         duration(1, 30 * kDay), number(sessions, &SS::ttl_ms)},
        {"session-sweep-interval", G::kSessions, "DURATION", "how often expired sessions are deleted",
         duration(10, kDay), number(sessions, &SS::sweep_interval_ms)},
        {"session-durability", G::kSessions, "MODE",
         "durable: an append is answered after its commit; buffered: once queued in memory, written at least every "
         "--session-flush (a crash loses up to that much)",
         choice({"durable", "buffered"}), text(sessions, &SS::durability)},
        {"session-flush", G::kSessions, "DURATION", "buffered: the longest time between two writes of the queue",
         duration(1, 60'000), number(sessions, &SS::flush_ms)},
        {"session-queue", G::kSessions, "N",
         "buffered: events queued at most (acknowledged, not yet written); then 503", integer(1, 100'000'000),
         number(sessions, &SS::max_queued_events)},
        {"session-append-in-flight", G::kSessions, "N",
         "PostgreSQL durable appends: statements out at once; appends arriving meanwhile wait and go together in the "
         "next one (one commit for the group)",
         integer(1, 1'000), number(sessions, &SS::append_in_flight)},
        {"session-append-batch", G::kSessions, "N",
         "PostgreSQL durable appends: the most appends one statement carries (one per session)", integer(1, 10'000),
         number(sessions, &SS::append_batch)},
        {"session-openapi", G::kSessions, "PATH",
         "where GET serves the OpenAPI 3.1 document of the session routes; 'off': not served", textual(route_path),
         text(sessions, &SS::openapi_path)},

        {"decide", G::kDecide, "",
         "mount the learning decision service (/v1/tenants/{t}/jobs/{j}/capsules/{c}/spec, decide, reward, ...); "
         "its store is --store, or decide.db under --data-dir",
         boolean(), flag(decide, &DS::enabled)},
        {"decide-decisions", G::kDecide, "MODE",
         "durable: a learner-mode decision is answered after its commit; buffered: written behind like frozen-mode "
         "ones (a crash loses the queued ones; rewards stay durable)",
         choice({"durable", "buffered"}), text(decide, &DS::decisions)},
        {"decide-max-capsules", G::kDecide, "N", "capsules one store holds (each model lives in memory); then 409",
         integer(1, 10'000'000), number(decide, &DS::max_capsules)},
        {"decide-max-actions", G::kDecide, "N", "actions of one capsule's spec; more is a 400", integer(1, 100'000),
         number(decide, &DS::max_actions)},
        {"decide-max-dimension", G::kDecide, "N",
         "largest features.dimension of a spec (a model holds dimension^2 numbers per action)", integer(2, 4096),
         number(decide, &DS::max_dimension)},
        {"decide-max-features", G::kDecide, "N", "declared context features of one spec", integer(1, 100'000),
         number(decide, &DS::max_features)},
        {"decide-max-spec-bytes", G::kDecide, "SIZE", "a capsule's spec document; 413 past it", sized(64, 64 * kMiB),
         number(decide, &DS::max_spec_bytes)},
        {"decide-max-model-bytes", G::kDecide, "SIZE",
         "memory of one capsule's model (two dimension x dimension matrices of doubles per arm); a bigger spec is a "
         "400",
         sized(1024, 64 * kGiB), number(decide, &DS::max_model_bytes)},
        {"decide-max-context-bytes", G::kDecide, "SIZE", "a decision's context; 413 past it", sized(16, 64 * kMiB),
         number(decide, &DS::max_context_bytes)},
        {"decide-max-batch", G::kDecide, "N", "requests in one batch call (decide/batch, reward/batch)",
         integer(1, 100'000), number(decide, &DS::max_batch)},
        {"decide-shadow-queue", G::kDecide, "N",
         "frozen-mode decisions queued for writing at most; past it they are not logged (counted as shadowLost)",
         integer(1, 100'000'000), number(decide, &DS::shadow_queue)},
        {"decide-shadow-flush", G::kDecide, "DURATION", "the longest a queued frozen-mode decision waits to be written",
         duration(1, 60'000), number(decide, &DS::shadow_flush_ms)},
        {"decide-shadow-batch", G::kDecide, "N",
         "queued frozen-mode decisions written by one transaction: a flush commits them in batches of this size, so "
         "no COMMIT on the shared write connection grows with the queue",
         integer(1, 100'000), number(decide, &DS::shadow_batch)},
        {"decide-snapshot-every", G::kDecide, "N", "learned rewards between two snapshots of a model",
         integer(1, 100'000'000), number(decide, &DS::snapshot_every)},
        {"decide-sweep-interval", G::kDecide, "DURATION",
         "how often decisions past their waitSeconds get their default (or summed) reward", duration(10, kDay),
         number(decide, &DS::sweep_interval_ms)},
        {"decide-max-page", G::kDecide, "N", "largest ?limit= of GET .../decisions", integer(1, 100'000),
         number(decide, &DS::max_page)},
        {"decide-max-evaluate", G::kDecide, "N",
         "logged decisions one POST .../evaluate or .../promote replays (the oldest in its time range)",
         integer(1, 100'000'000), number(decide, &DS::max_evaluate)},
        {"decide-max-resamples", G::kDecide, "N", "bootstrap resamples one evaluation may ask for", integer(0, 100'000),
         number(decide, &DS::max_resamples)},
        {"decide-promote-min-samples", G::kDecide, "N",
         "logged decisions a promotion needs at least (a request may ask more)", integer(1, 100'000'000),
         number(decide, &DS::promote_min_samples)},
        {"decide-metrics-capsules", G::kDecide, "N",
         "capsules with their own series on /metrics (the first by tenant/job/name); 0: only the totals",
         integer(0, 1'000'000), number(decide, &DS::metrics_capsules)},
        {"decide-access", G::kDecide, "FILE",
         "who may learn: lines '<principal> <read|write|none> [tenant,...]'; read may decide and read, never reward, "
         "change a spec or promote (403)",
         textual(), text(decide, &DS::access_file)},
        {"decide-default-access", G::kDecide, "LEVEL",
         "access of principals the --decide-access file does not list (and of anonymous requests)",
         choice({"write", "read", "none"}), text(decide, &DS::default_access)},
        {"decide-rate-limit", G::kDecide, "RATE",
         "decisions per principal (or client address) and period, batch items counted: 1000/s; 429 past it",
         textual(rate_text), text(decide, &DS::decide_rate_limit)},
        {"decide-reward-rate-limit", G::kDecide, "RATE", "rewards per principal (or client address) and period",
         textual(rate_text), text(decide, &DS::reward_rate_limit)},
        {"decide-rate-limit-burst", G::kDecide, "N",
         "decisions (rewards) a full bucket allows at once; 0: the rate's count", integer(0, 1'000'000'000),
         number(decide, &DS::rate_limit_burst)},
        {"decide-openapi", G::kDecide, "PATH",
         "where GET serves the OpenAPI 3.1 document of the decision routes; 'off': not served", textual(route_path),
         text(decide, &DS::openapi_path)},
        {"model", G::kModel, "FILE",
         "serve this model (.gguf: llama or qwen2, f32/f16/bf16/q8_0/q4_0; or a llama2.c .bin) with the OpenAI API: "
         "/v1/chat/completions, /v1/completions, /v1/models",
         textual(), text(model, &MS::path)},
        {"model-id", G::kModel, "NAME", "the model's name in the API; empty: the file's name without extension",
         textual(), text(model, &MS::id)},
        {"model-threads", G::kModel, "N", "threads of the model's kernels; 0 means one per core", integer(0, 1024),
         number(model, &MS::threads)},
        {"model-kv-cache", G::kModel, "SIZE", "memory of the paged KV cache (keys and values of every sequence)",
         sized(64 * 1024, 1024 * kGiB), number(model, &MS::kv_cache_bytes)},
        {"model-block-size", G::kModel, "N", "positions per KV-cache block (the prefix cache shares whole blocks)",
         integer(1, 1024), number(model, &MS::block_size)},
        {"model-max-context", G::kModel, "N", "longest sequence (prompt + output); 0: the model's context length",
         integer(0, 10'000'000), number(model, &MS::max_context)},
        {"model-max-batch-tokens", G::kModel, "N", "tokens one scheduler step computes (decodes and prefill chunks)",
         integer(1, 1'000'000), number(model, &MS::max_batch_tokens)},
        {"model-max-running", G::kModel, "N", "sequences in the running batch", integer(1, 100'000),
         number(model, &MS::max_running)},
        {"model-prefill-chunk", G::kModel, "N", "prompt tokens of one sequence in one step (chunked prefill)",
         integer(1, 1'000'000), number(model, &MS::prefill_chunk)},
        {"model-max-waiting", G::kModel, "N", "sequences queued for the running batch; then 503",
         integer(1, 10'000'000), number(model, &MS::max_waiting)},
        {"model-preemption", G::kModel, "MODE",
         "when KV blocks run out: recompute (free the blocks, prefill again later) or swap (to host memory)",
         choice({"recompute", "swap"}), text(model, &MS::preemption)},
        {"model-prefix-cache", G::kModel, "", "reuse the KV blocks of earlier prompts' common prefixes", boolean(),
         flag(model, &MS::prefix_cache)},
        {"model-speculative-ngram", G::kModel, "N",
         "draft tokens per step by prompt lookup (lossless speculative decoding); 0: off", integer(0, 16),
         number(model, &MS::speculative_ngram)},
        {"model-draft", G::kModel, "FILE",
         "a smaller draft model (.gguf, the same vocabulary and tokenizer) for lossless speculative decoding",
         textual(), text(model, &MS::draft)},
        {"model-speculative-draft", G::kModel, "N", "draft-model tokens per step (with --model-draft); 0: off",
         integer(0, 16), number(model, &MS::speculative_draft)},
        {"model-draft-kv-cache", G::kModel, "SIZE", "memory of the draft model's own KV cache",
         sized(64 * 1024, 1024 * kGiB), number(model, &MS::draft_kv_cache_bytes)},
        {"model-max-choices", G::kModel, "N", "choices of one request (n times the prompts)", integer(1, 1024),
         number(model, &MS::max_choices)},
        {"model-default-max-tokens", G::kModel, "N",
         "tokens generated when a request names no max_tokens; 0: what is left of the context", integer(0, 10'000'000),
         number(model, &MS::default_max_tokens)},
        {"llm-upstream", G::kLlmProxy, "URL",
         "an OpenAI-compatible API (https://api.openai.com, http://127.0.0.1:8000): serve POST --llm-proxy-route, "
         "whose output is validated against --llm-proxy-schema as it streams; empty: off",
         textual(), text(llm, &LP::upstream)},
        {"llm-upstream-api-key", G::kLlmProxy, "KEY",
         "sent upstream as a Bearer token (prefer the environment variable or the key file to a flag)", textual(),
         text(llm, &LP::api_key)},
        {"llm-upstream-api-key-file", G::kLlmProxy, "FILE", "read the upstream's API key from FILE's first line",
         textual(), text(llm, &LP::api_key_file)},
        {"llm-upstream-ca-file", G::kLlmProxy, "FILE",
         "CA certificates (PEM) for the upstream's TLS; empty: the system store", textual(), text(llm, &LP::ca_file)},
        {"llm-upstream-verify-tls", G::kLlmProxy, "",
         "check the upstream's certificate chain and name (off only for tests)", boolean(), flag(llm, &LP::verify_tls)},
        {"llm-upstream-connect-timeout", G::kLlmProxy, "DURATION", "resolving, TCP and TLS of one upstream connection",
         duration(1, kDay), number(llm, &LP::connect_timeout_ms)},
        {"llm-upstream-first-byte-timeout", G::kLlmProxy, "DURATION", "until the upstream's response head; then 504",
         duration(1, kDay), number(llm, &LP::first_byte_timeout_ms)},
        {"llm-upstream-idle-timeout", G::kLlmProxy, "DURATION",
         "between two pieces of the upstream's stream; then an error event", duration(1, kDay),
         number(llm, &LP::idle_timeout_ms)},
        {"llm-upstream-total-timeout", G::kLlmProxy, "DURATION", "one whole upstream call; 0: none", duration(0, kDay),
         number(llm, &LP::total_timeout_ms)},
        {"llm-upstream-max-connections", G::kLlmProxy, "N", "connections to the upstream at once; more calls wait",
         integer(1, 100'000), number(llm, &LP::max_connections)},
        {"llm-upstream-http2", G::kLlmProxy, "MODE",
         "auto: HTTP/2 when an https upstream chooses it by ALPN (else HTTP/1.1); off: HTTP/1.1 only; "
         "prior-knowledge: HTTP/2 without asking (h2c over http://)",
         choice({"auto", "off", "prior-knowledge"}), text(llm, &LP::http2)},
        {"llm-upstream-max-streams", G::kLlmProxy, "N",
         "HTTP/2 streams at once on the upstream connection; more calls wait", integer(1, 100'000),
         number(llm, &LP::max_streams)},
        {"llm-proxy-route", G::kLlmProxy, "PATH", "the POST route taking OpenAI chat completion requests",
         textual(not_empty), text(llm, &LP::route)},
        {"llm-proxy-schema", G::kLlmProxy, "FILE", "the JSON Schema (a file) the streamed output must satisfy",
         textual(), text(llm, &LP::schema_file)},
        {"llm-proxy-format", G::kLlmProxy, "FORMAT",
         "sse: text/event-stream events; ndjson: one {\"type\", \"value\"} object per line", choice({"sse", "ndjson"}),
         text(llm, &LP::format)},
        {"llm-proxy-events", G::kLlmProxy, "KIND",
         "partial: the value so far after each piece; delta: each piece of text", choice({"partial", "delta"}),
         text(llm, &LP::events)},
        {"llm-proxy-model", G::kLlmProxy, "NAME", "the model named upstream when a request names none", textual(),
         text(llm, &LP::model)},
        {"llm-proxy-response-format", G::kLlmProxy, "",
         "requests without response_format get one with the schema (json_schema, strict)", boolean(),
         flag(llm, &LP::response_format)},
        {"llm-proxy-max-output", G::kLlmProxy, "SIZE", "the streamed document's bytes; then an error event",
         sized(1, 1 * kGiB), number(llm, &LP::max_output_bytes)},
        {"llm-proxy-max-request", G::kLlmProxy, "SIZE", "a request body's bytes; then 413", sized(1, 1 * kGiB),
         number(llm, &LP::max_request_bytes)},
    };

    Registry r;
    for (Row& row : rows)
        r.add(option_of(std::move(row)));
    return r;
}

}  // namespace slipstream::app
