// Server: the I/O threads, their listeners, and the lifecycle (start, drain on signal, stop).
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "base/clock.h"
#include "metrics/registry.h"
#include "net/listener.h"
#include "net/tls/tls_context_store.h"
#include "policy/cors/cors_policy.h"
#include "server/builtin_routes.h"
#include "server/conn/access_policy.h"
#include "server/conn/route_table.h"
#include "server/conn/worker.h"
#include "server/observe/access_log.h"
#include "server/observe/server_metrics.h"
#include "slipstream/server_options.h"

namespace slipstream::server {

/// Control plane: methods throw std::system_error / std::invalid_argument on failure (the constructor too, for
/// bad CORS, authentication or rate-limit options).
/// stop() is thread-safe and async-signal-safe; everything else belongs to the owning thread.
class Server {
  public:
    explicit Server(ServerOptions options);
    ~Server();

    RouteTable& routes() { return routes_; }
    metrics::Registry& registry() { return registry_; }
    void add_readiness_check(std::string name, std::function<bool()> check);
    /// Before start(): a route template served without credentials or limits; the resource metadata URL of the
    /// 401s' WWW-Authenticate (std::invalid_argument for a bad one). No-ops while the access policy is off.
    void add_public_route(std::string_view pattern);
    void set_resource_metadata(std::string_view url);
    const ServerOptions& options() const { return shared_.options; }
    unsigned threads() const { return threads_; }

    /// Binds one SO_REUSEPORT listener per I/O thread now (so port() is known at once). Unless
    /// `reuse_port` is set, a port another process (or socket) holds fails with std::system_error(EADDRINUSE),
    /// "listen on <host:port>: address already in use (...)".
    void listen_tcp(std::string_view host, std::uint16_t port);
    void listen_unix(std::string_view path);
    std::uint16_t port() const { return first_port_; }

    /// Starts the I/O threads and the control thread. With `handle_signals`, SIGINT/SIGTERM drain the
    /// server (a second one forces the exit); the caller must have blocked them (see block_stop_signals).
    void start(bool handle_signals);
    /// Asks for a drain. Thread-safe, async-signal-safe.
    void stop();
    /// Blocks until the server stopped; returns 0 after a clean drain, 1 when the drain deadline or a
    /// second signal cut it short.
    int wait();

    /// Reloads the TLS certificate, key and client CA files: new handshakes use them, open connections
    /// keep theirs. Returns false (and logs why, keeping the old files) when they cannot be loaded, or when
    /// TLS is off. Thread-safe. With `handle_signals`, SIGHUP calls it.
    bool reload_tls();
    bool tls_enabled() const { return tls_ != nullptr; }

    /// Blocks SIGINT, SIGTERM and SIGHUP in the calling thread (threads started later inherit the mask).
    static void block_stop_signals();

  private:
    void control_loop(bool handle_signals);
    // Loads the TLS context on first use (throws std::invalid_argument when the files are bad).
    void ensure_tls();

    ServerShared shared_;
    base::SystemClock clock_;
    metrics::Registry registry_;
    ServerMetrics metrics_{registry_};
    std::unique_ptr<AccessLog> access_log_;
    std::unique_ptr<net::tls::TlsContextStore> tls_;        // set when TLS is configured
    std::unique_ptr<const policy::cors::CorsPolicy> cors_;  // set when CORS is on
    std::unique_ptr<AccessPolicy> access_;                  // set when authentication or rate limits are on
    std::unique_ptr<AddressConnections> per_address_;       // set when max_connections_per_ip is on
    BuiltinContext builtins_;
    RouteTable routes_;
    unsigned threads_;
    std::vector<std::vector<net::Listener>> listeners_;  // per worker
    std::uint16_t first_port_ = 0;
    std::vector<std::unique_ptr<Worker>> workers_;
    std::vector<std::thread> io_threads_;
    std::thread control_;
    int stop_fd_ = -1;
    std::atomic<int> exit_code_{0};
    bool started_ = false;
    bool joined_ = false;
};

}  // namespace slipstream::server
