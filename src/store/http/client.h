// Client: an HTTP/1.1 and HTTP/2 client on one EventLoop: pools per origin, TLS, timeouts, retries, streamed responses.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "base/result.h"
#include "base/status.h"
#include "http/h1/response_parser.h"
#include "http/h2/client_session.h"
#include "net/event_loop.h"
#include "net/socket_address.h"
#include "net/timer.h"
#include "net/tls/tls_config.h"
#include "store/http/url.h"
#include "store/worker_pool.h"

namespace slipstream::net::tls {
class TlsContext;
}

namespace slipstream::store::http {

namespace h1 = ::slipstream::http::h1;

/// Which protocol a client speaks to an origin.
enum class Http2Mode : std::uint8_t {
    /// https: ALPN offers "h2" then "http/1.1" and the server chooses; http: HTTP/1.1.
    kAuto,
    /// HTTP/1.1 only.
    kOff,
    /// HTTP/2 without asking: h2c on a plain TCP connection (RFC 9113 §3.3), ALPN "h2" only over TLS.
    kPriorKnowledge,
};

/// "auto", "off", "prior-knowledge" (also "h2c"); kInvalidArgument for anything else.
base::Result<Http2Mode> parse_http2_mode(std::string_view text);
std::string_view http2_mode_name(Http2Mode mode);

/// Deadlines of one request, in nanoseconds; 0: none. (Connecting has the client's own deadline,
/// ClientOptions::connect_timeout_ns: a connection is not made for one call only.)
struct Timeouts {
    /// From the moment the request was written to the first byte of the response.
    std::int64_t first_byte_ns = 60'000'000'000;
    /// Between two reads of the response once it started (a stalled stream). Not counted while the caller has
    /// paused reading.
    std::int64_t idle_ns = 60'000'000'000;
    /// The whole call, from start() to the end of the body: resolving, waiting for a connection, connecting,
    /// retries included.
    std::int64_t total_ns = 0;
};

struct Request {
    std::string method = "GET";
    std::string url;  // absolute http:// or https:// URL
    /// Sent as given, after Host (set from the URL). Refused (kInvalidArgument): CR/LF/NUL, a bad name, and the
    /// fields the client sets itself: Host, Content-Length, Transfer-Encoding, Connection, Upgrade, TE.
    std::vector<std::pair<std::string, std::string>> headers;
    /// Sent with Content-Length (also 0 for POST, PUT and PATCH).
    std::string body;
    Timeouts timeouts;
    /// May it be sent again after a failure that left no byte of the response? Default: by method (GET, HEAD,
    /// OPTIONS, TRACE, PUT, DELETE) or an Idempotency-Key field.
    std::optional<bool> idempotent;
};

/// The response head as the callbacks see it (owned copies; 1xx interim heads are skipped).
struct ResponseHead {
    int status = 0;
    std::string reason;
    int version_minor = 1;
    bool http2 = false;  // the response came on an HTTP/2 stream (then reason is empty)
    std::vector<std::pair<std::string, std::string>> headers;  // in arrival order, names as sent
    /// The first value of `name` (case-insensitive), or empty.
    std::string_view header(std::string_view name) const;
};

/// What the caller hears, on the loop thread. on_head at most once (before any data), on_data for each piece of
/// the decoded body in order (a view valid during the call), on_end exactly once: ok after the whole body, else
/// the error (then the connection is closed). No callback runs from inside start(). Any callback may call
/// pause()/resume()/cancel() on the call, or destroy the Client (then nothing more is delivered).
struct ResponseCallbacks {
    std::function<void(const ResponseHead& head)> on_head;
    std::function<void(std::string_view data)> on_data;
    std::function<void(base::Status status)> on_end;
};

/// A whole buffered response (Client::fetch).
struct Response {
    ResponseHead head;
    std::string body;
};

/// Callbacks that gather a whole response and hand it to `done` once (fetch()).
ResponseCallbacks buffered_response(std::function<void(base::Result<Response>)> done);

struct ClientOptions {
    /// Connections open at once per origin (scheme, host, port), in use, idle or connecting; calls beyond wait.
    std::size_t max_connections_per_origin = 16;
    /// Calls waiting for a connection per origin; beyond it start() answers kResourceExhausted.
    std::size_t max_waiting_per_origin = 1024;
    /// A call waiting for a connection hears kTimeout after this (0: only Timeouts::total_ns bounds it).
    std::int64_t queue_timeout_ns = 30'000'000'000;
    /// A keep-alive connection unused for this long is closed (0: kept until the server closes it). Below the
    /// usual server keep-alive timeouts (uvicorn 5 s, nginx 75 s), so a request rarely meets a connection the
    /// server is closing.
    std::int64_t idle_connection_ns = 4'000'000'000;
    /// One connection attempt: resolving, TCP connect (each address in turn) and the TLS handshake.
    std::int64_t connect_timeout_ns = 10'000'000'000;
    /// Resolved addresses of a host name are reused for this long.
    std::int64_t dns_ttl_ns = 60'000'000'000;
    /// Retries of an idempotent request (Request::idempotent) that failed before any byte of its response
    /// arrived: connection refused or reset, a reused connection closed under it. Never after a timeout.
    int max_retries = 2;
    /// Wait before a retry after a refused connection (doubling each time); a stale reused connection is retried
    /// at once.
    std::int64_t retry_backoff_ns = 50'000'000;
    /// HTTP/2 requests the server never processed (REFUSED_STREAM, above a GOAWAY's last stream id) are sent again
    /// up to this many times, whatever their method and max_retries (nothing was done, nothing is repeated).
    int max_unprocessed_retries = 2;
    /// Limits on a response: the head, the body (Content-Length above it is refused before reading; chunked data
    /// past it fails the call), a chunk-size line and the trailer section.
    h1::ResponseLimits head_limits;
    std::uint64_t max_body_bytes = std::uint64_t{1} << 30;
    std::size_t max_chunk_line = 4 * 1024;
    std::size_t max_trailer_bytes = 16 * 1024;
    /// TLS for https:// origins: verification on by default (system CA store, or tls.ca_file), SNI, ALPN (empty:
    /// by `http2`: "h2" and "http/1.1", "http/1.1" alone, or "h2" alone; a server choosing another is refused).
    net::tls::TlsClientConfig tls{.verify = true, .ca_file = {}, .alpn = {}, .cert_file = {}, .key_file = {}};
    /// HTTP/2 per origin: this mode, unless `http2_by_origin` names the origin ("https://host:port", as
    /// Url::origin() writes it). An HTTP/2 origin gets one connection, its requests multiplexed as streams
    /// (at most h2.max_concurrent_streams, fewer if the server says so; the others wait in the queue).
    Http2Mode http2 = Http2Mode::kAuto;
    std::unordered_map<std::string, Http2Mode> http2_by_origin;
    /// The HTTP/2 session's settings and limits: streams at once, the receive windows (a paused stream holds at
    /// most h2.stream_window bytes: the server waits for WINDOW_UPDATE), the response head's size.
    ::slipstream::http::h2::ClientSessionConfig h2;
    /// Sent unless the request has its own.
    std::string user_agent = "slipstream";
};

struct ClientStats {
    std::size_t open = 0;            // connections, in any state
    std::size_t idle = 0;            // kept alive, unused
    std::size_t active = 0;          // calls started and not ended
    std::size_t waiting = 0;         // calls waiting for a connection
    std::uint64_t connects = 0;      // connections opened (successfully)
    std::uint64_t reused = 0;        // requests sent on a kept-alive connection
    std::uint64_t retries = 0;       // requests sent again
    std::uint64_t expired = 0;       // idle connections closed for idleness, or found closed by the server
    std::uint64_t h2_streams = 0;    // requests sent as HTTP/2 streams
    std::size_t h2_connections = 0;  // open HTTP/2 connections
};

class Client;
class Connection;
class H2Link;
struct Origin;

/// One request in flight. Loop thread only. Holding it keeps nothing else alive; after the call ended (or the
/// Client is gone) its methods do nothing.
class Call : public std::enable_shared_from_this<Call> {
  public:
    /// Stops the call: the connection (if any) is closed, and on_end hears kCancelled at once, from inside this
    /// call, unless it ended already. A no-op after the end.
    void cancel();
    /// Stops delivering body data (and reading the socket: the server is held back by TCP flow control) until
    /// resume(). The idle timeout does not run while paused; the total timeout does.
    void pause();
    /// Delivers what was held (from the loop, not from inside this call), then reads on.
    void resume();
    bool paused() const { return paused_; }
    bool done() const { return done_; }
    /// The request was sent more than once (retries), and whether its last attempt used a kept-alive connection.
    int attempts() const { return attempts_; }
    bool reused_connection() const { return reused_; }

    // Internal (the client and its connections).
    Call(Client* client, Request request, ResponseCallbacks callbacks);
    ~Call();

  private:
    friend class Client;
    friend class Connection;
    friend class H2Link;

    void finish(base::Status status);
    // The request's HTTP/1.1 bytes (made once, at its first HTTP/1.1 attempt).
    const std::string& h1_wire();

    Client* client_;
    Request request_;
    ResponseCallbacks callbacks_;
    Url url_;
    std::string wire_;  // the request's HTTP/1.1 bytes, once made
    bool has_agent_ = false;
    bool idempotent_ = false;
    bool paused_ = false;
    bool done_ = false;
    bool head_seen_ = false;  // a byte of the response arrived (then never retried)
    bool reused_ = false;
    int attempts_ = 0;
    int refused_retries_ = 0;
    Origin* origin_ = nullptr;
    Connection* conn_ = nullptr;  // serving it
    net::Timer total_timer_;
    net::Timer wait_timer_;   // queue_timeout_ns
    net::Timer retry_timer_;  // a retry's backoff
    bool backing_off_ = false;
    // On an HTTP/2 connection: the stream, its first-byte/idle timer, body bytes held while paused.
    std::uint32_t stream_id_ = 0;
    net::Timer io_timer_;
    const char* io_phase_ = "";
    std::int64_t io_ns_ = 0;
    std::string held_;
    bool h2_ended_ = false;  // END_STREAM arrived; finished once held_ is delivered
    std::uint64_t body_bytes_ = 0;
};

/// HTTP/1.1 and HTTP/2 calls from one event loop. Connections are kept per origin (scheme, host, port) and reused: an
/// idle one is checked on checkout (a server that closed it is noticed by the loop while it is idle), at most
/// max_connections_per_origin are open, calls beyond wait in FIFO order. Host names are resolved by getaddrinfo
/// on `resolver` (never on the loop thread); numeric hosts and "localhost" need no resolver. All methods: loop
/// thread only. Destroying the client ends every call with kCancelled (their on_end runs) and closes every
/// connection; do it on the loop thread. `resolver` must outlive the client, and its jobs the loop.
class Client {
  public:
    Client(net::EventLoop& loop, ClientOptions options = {}, WorkerPool* resolver = nullptr);
    ~Client();
    Client(const Client&) = delete;
    Client& operator=(const Client&) = delete;

    /// Starts `request`; the callbacks report its progress (never from inside this call). Errors go to on_end:
    /// kInvalidArgument (URL, headers, method; a malformed response, with the parser's reason; a refused TLS
    /// certificate), kResourceExhausted (queue full), kNotFound (the host name does not resolve), kUnavailable
    /// (refused, reset, closed, a truncated body), kTimeout (which deadline, by name), kOutOfRange (a response
    /// past a limit).
    std::shared_ptr<Call> start(Request request, ResponseCallbacks callbacks);
    /// start() with the whole body collected (at most max_body_bytes); `done` runs once.
    std::shared_ptr<Call> fetch(Request request, std::function<void(base::Result<Response>)> done);

    ClientStats stats() const;
    const ClientOptions& options() const { return options_; }
    net::EventLoop& loop() { return loop_; }

  private:
    friend class Call;
    friend class Connection;
    friend class H2Link;

    Origin& origin_for(const Url& url);
    void enqueue(const std::shared_ptr<Call>& call, bool front);
    void dispatch(Origin& origin);
    void open_connection(Origin& origin);
    void resolve(Origin& origin);
    void on_resolved(const std::string& key, base::Result<std::vector<net::SocketAddress>> addresses,
                     std::uint64_t generation);
    // A connection attempt failed before it could carry a request: one waiting call hears it or retries.
    void connect_failed(Origin& origin, base::Status status);
    // A call's request failed before any byte of its response; true when it was queued again. `unprocessed`: the
    // server said it never processed it (HTTP/2 REFUSED_STREAM, GOAWAY), so any method may be sent again.
    bool maybe_retry(const std::shared_ptr<Call>& call, const base::Status& status, bool unprocessed = false);
    // A connection is free (ready, or its call ended): the next waiting call takes it, else it goes idle.
    void release(Connection* conn);
    // Forgets a closed connection: buried at the end of the iteration (it may be on the stack).
    void drop(Connection* conn, bool redispatch = true);
    void remove_waiter(Call* call);
    base::Result<std::shared_ptr<const net::tls::TlsContext>> tls_context(Http2Mode mode);
    Http2Mode mode_for(const std::string& origin) const;

    net::EventLoop& loop_;
    ClientOptions options_;
    WorkerPool* resolver_;
    std::unordered_map<std::string, std::unique_ptr<Origin>> origins_;
    std::vector<std::unique_ptr<Connection>> graveyard_;  // closed connections, destroyed at the iteration's end
    bool burying_ = false;
    std::shared_ptr<const net::tls::TlsContext> tls_[3];  // by Http2Mode (the ALPN list differs)
    base::Status tls_error_;
    std::size_t active_ = 0;
    ClientStats counters_;
    std::shared_ptr<bool> alive_ = std::make_shared<bool>(true);  // resolver answers check it
    bool closing_ = false;
};

}  // namespace slipstream::store::http
