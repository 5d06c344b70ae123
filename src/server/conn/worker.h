// Worker: one I/O thread's world: its event loop, listeners, connections and scratch buffers.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "http/h1/date_cache.h"
#include "http/h1/header.h"
#include "http/h1/limits.h"
#include "net/event_loop.h"
#include "net/listener.h"
#include "net/timer.h"
#include "net/tls/tls_context_store.h"
#include "router/method.h"
#include "server/coding/content_coding.h"
#include "server/conn/pending_response.h"
#include "server/conn/protocol_session.h"
#include "server/conn/route_table.h"
#include "server/core/address_connections.h"
#include "server/core/handler_count.h"
#include "server/observe/access_log.h"
#include "server/observe/request_ids.h"
#include "server/observe/server_metrics.h"
#include "slipstream/server_options.h"

namespace slipstream::policy::cors {
class CorsPolicy;
}

namespace slipstream::server {

class Connection;
class AccessPolicy;

/// State shared by every worker of one server: read-only after start, except the atomics.
struct ServerShared {
    ServerOptions options;
    http::h1::Limits limits;
    const RouteTable* routes = nullptr;
    std::atomic<std::size_t> connections{0};  // open connections across all workers
    std::atomic<bool> draining{false};
    std::shared_ptr<HandlerCount> handlers;  // asynchronous handlers running (max_handlers_in_flight); null: no cap
    ServerMetrics* metrics = nullptr;
    AccessLog* access_log = nullptr;                 // null when the access log is off
    net::tls::TlsContextStore* tls = nullptr;        // set when TLS is on: the context new connections use
    const policy::cors::CorsPolicy* cors = nullptr;  // set when CORS is on
    AccessPolicy* access = nullptr;                  // set when authentication or rate limits are on
    AddressConnections* per_address = nullptr;       // set when max_connections_per_ip caps each client address
    SessionFactory sessions;                         // the protocols a connection speaks
};

/// What the metrics and the access log record of one answered request. Views must live until observe() returns.
struct RequestRecord {
    base::MonoNanos start = 0;
    std::uint32_t route_key = kUnmatchedRoute;
    std::string_view route = "(unmatched)";
    Method method = Method::kOther;
    std::string_view method_text;
    std::string_view path;
    std::string_view request_id;
    std::string_view trace_id;
    std::size_t request_bytes = 0;
};

/// Owns its loop and everything on it. Constructed on the control thread; after run() starts, every
/// method but post-based ones runs on the worker's own thread.
class Worker {
  public:
    Worker(ServerShared& shared, const base::Clock& clock, unsigned index);
    ~Worker();

    void add_listener(net::Listener listener);
    /// Runs the loop on the calling thread until stopped.
    void run();
    /// Thread-safe: begins the drain on the worker's thread. `on_drained` runs there once no connection is left.
    void drain(std::function<void()> on_drained);
    /// Thread-safe: stops the loop.
    void stop() { loop_.stop(); }
    /// Thread-safe: the drain deadline passed: closes every connection on the worker's thread (responses in
    /// progress are cut and logged as aborted), then stops the loop.
    void abort_and_stop();

    net::EventLoop& loop() { return loop_; }
    /// The handle asynchronous Responders post through (outlives the loop safely).
    const std::shared_ptr<slipstream::detail::LoopRef>& loop_ref() const { return loop_ref_; }
    const ServerOptions& options() const { return shared_.options; }
    const http::h1::Limits& limits() const { return shared_.limits; }
    const RouteTable& routes() const { return *shared_.routes; }
    const SessionFactory& sessions() const { return shared_.sessions; }
    /// The process-wide count of asynchronous handlers running; null when there is no cap.
    const std::shared_ptr<HandlerCount>& handlers() const { return shared_.handlers; }
    bool draining() const { return draining_; }

    /// Header array for parse_request (valid until the next parse on this thread).
    std::span<http::h1::Header> header_scratch() { return headers_; }
    /// The buffer reads go into when a connection holds no partial request.
    std::span<char> read_scratch() { return {read_buffer_.get(), kReadBufferSize}; }
    /// Where a TLS connection gathers small output pieces into one record (one record's payload).
    std::span<char> write_scratch() { return {write_buffer_.get(), kWriteScratchSize}; }
    /// Scratch for percent-decoding a path (inline: called for every request).
    std::span<char> path_scratch(std::size_t n) {
        if (path_buffer_.size() < n) [[unlikely]]
            path_buffer_.resize(n);
        return path_buffer_;
    }
    /// The Date header value for the loop's now(). The wall clock is read at most once per second: the
    /// text is kept until the loop's monotonic time reaches the next wall-second boundary.
    std::string_view date() {
        if (loop_.now() >= date_valid_until_) [[unlikely]]
            refresh_date();
        return date_text_;
    }

    /// Called by a connection that closed itself: destroyed at the end of the loop iteration.
    void retire(Connection* connection);

    /// Records an answered request in the metrics and the access log. `aborted`: the response was cut
    /// (client gone, drain deadline); the log line says "aborted":true and `response_bytes` is what was written.
    void observe(const RequestRecord& record, int status, std::size_t response_bytes, const net::SocketAddress& peer,
                 bool aborted = false);
    RequestIdGenerator& request_ids() { return request_ids_; }
    /// The request id to send back as X-Request-ID: `id`, or nothing with --no-request-id-response.
    std::string_view response_request_id(std::string_view id) const {
        return shared_.options.request_id_response ? id : std::string_view();
    }
    ServerMetrics& metrics() { return *shared_.metrics; }
    /// Response compression and request-body decoding for this thread.
    ContentCoding& content_coding() { return content_coding_; }
    /// The CORS rules; null while CORS is off.
    const policy::cors::CorsPolicy* cors() const { return shared_.cors; }
    /// Authentication and rate limits (thread-safe); null while both are off.
    AccessPolicy* access() const { return shared_.access; }

    static constexpr std::size_t kReadBufferSize = 64 * 1024;
    static constexpr std::size_t kWriteScratchSize = 16 * 1024;
    /// Access-log records a worker collects before handing them over ahead of the flush interval.
    static constexpr std::size_t kLogHandOverBytes = 32 * 1024;

  private:
    struct ListenerHandler;

    void on_accept(ListenerHandler& lh);
    void refresh_date();
    std::int64_t wall_at(base::MonoNanos mono);
    void on_accept_pending(ListenerHandler& lh);
    // Answers a refused connection with a canned response and closes it.
    void refuse(net::Fd fd, std::string_view response);
    void maybe_drained();
    void hand_over_log();

    ServerShared& shared_;
    ContentCoding content_coding_{shared_.options, shared_.metrics->coding};
    net::EventLoop loop_;
    std::shared_ptr<slipstream::detail::LoopRef> loop_ref_;
    unsigned index_;
    std::vector<std::unique_ptr<ListenerHandler>> listeners_;
    std::unordered_map<Connection*, std::unique_ptr<Connection>> connections_;
    std::vector<http::h1::Header> headers_;
    std::unique_ptr<char[]> read_buffer_;
    std::unique_ptr<char[]> write_buffer_;
    std::vector<char> path_buffer_;
    http::h1::DateCache date_cache_;
    std::string_view date_text_;                    // date_cache_'s text for the current second
    base::MonoNanos date_valid_until_ = INT64_MIN;  // loop time at which the second may have changed
    MetricsCache metrics_cache_;
    RequestIdGenerator request_ids_;
    base::MonoNanos wall_sampled_at_ = 0;
    std::int64_t wall_offset_ = 0;
    AccessBatch log_batch_;
    net::Timer log_timer_;       // armed while log_batch_ holds records; hands them over when it fires
    net::Timer tls_trim_timer_;  // with TLS: every second, idle connections free their OpenSSL buffers
    bool draining_ = false;
    std::function<void()> on_drained_;
};

}  // namespace slipstream::server
