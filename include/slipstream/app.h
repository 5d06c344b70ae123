// App: the C++ front end: register routes, listen, run until a stop signal.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "slipstream/request.h"
#include "slipstream/responder.h"
#include "slipstream/response.h"
#include "slipstream/route_spec.h"
#include "slipstream/server_options.h"
#include "slipstream/websocket.h"

namespace slipstream {

/// A handler that answers at once, on the I/O thread. Must not block.
using Handler = std::function<Response(Request&)>;
/// A handler that answers later, from any thread, through the Responder.
using AsyncHandler = std::function<void(Request&, Responder)>;

namespace detail {
class AppImpl;
}
namespace metrics {
class Histogram;
}

/// A histogram of durations on the /metrics page, shown in seconds. observe() is lock-free and may run on any
/// thread; valid while its App lives. A default-constructed one ignores observations.
class DurationHistogram {
  public:
    DurationHistogram() = default;
    /// Negative durations count as 0.
    void observe(double seconds) const;

  private:
    friend class App;
    explicit DurationHistogram(metrics::Histogram* histogram) : histogram_(histogram) {}
    metrics::Histogram* histogram_ = nullptr;
};

/// One sample of a labelled application metric (App::gauge_metric / counter_metric with label names): one value
/// per label name, in the same order.
struct MetricSample {
    std::vector<std::string> labels;
    double value = 0.0;
};

/// Route registration and the server's lifetime. Register routes, then listen(), then run()
/// (or start() + stop() for tests). Registration methods throw std::invalid_argument on a bad
/// or duplicate pattern; listen() throws std::system_error when a socket cannot be bound.
/// Not thread-safe except stop(), which any thread (or a signal) may call.
///
/// Patterns: "/users/{id}", "/items/{id:int}", "/files/{path:path}" (see the router README).
class App {
  public:
    /// Takes every limit and feature of the server (see ServerOptions). Throws std::invalid_argument for a
    /// bad option checked here, e.g. a CORS origin regex RE2 cannot compile, an API key file with a bad line or a
    /// rate that does not parse. CORS, for instance:
    ///     ServerOptions o;
    ///     o.cors_allow_origins = "https://app.example.com";
    ///     o.cors_allow_methods = "GET,POST";
    ///     App app(o);  // preflights answered by the engine; answers get the Access-Control-* fields
    explicit App(ServerOptions options = {});
    ~App();
    App(const App&) = delete;
    App& operator=(const App&) = delete;

    App& get(std::string_view pattern, Handler handler);
    App& post(std::string_view pattern, Handler handler);
    App& put(std::string_view pattern, Handler handler);
    App& patch(std::string_view pattern, Handler handler);
    App& del(std::string_view pattern, Handler handler);
    /// Any method by name ("GET", "POST", ...).
    App& route(std::string_view method, std::string_view pattern, Handler handler);
    App& route_async(std::string_view method, std::string_view pattern, AsyncHandler handler);
    /// A route whose parameters and body are coerced and validated in C++ first (see RouteSpec);
    /// the handler reads them from Request::arguments().
    App& route_async(std::string_view method, std::string_view pattern, AsyncHandler handler, RouteSpec spec);
    App& route(std::string_view method, std::string_view pattern, Handler handler, RouteSpec spec);

    /// A WebSocket route: a GET with a valid upgrade to `pattern` (path parameters allowed) becomes a
    /// WebSocket connection driven by `handler`; a request without the upgrade gets 426.
    App& websocket(std::string_view pattern, WebSocketHandler handler);

    /// Adds a readiness check run by the /readyz route (on an I/O thread: it must be quick and must not
    /// block). /readyz answers 503 naming the failing checks, and 503 while the server drains.
    App& readiness_check(std::string name, std::function<bool()> check);

    /// Application metrics on the /metrics page, next to the engine's. Names match [a-zA-Z_:][a-zA-Z0-9_:]*; a bad
    /// or already taken name throws std::invalid_argument. Call before start(). `value` runs on the scraping
    /// thread whenever /metrics is read: it must be thread-safe and quick. A counter's value must not decrease.
    App& gauge_metric(std::string name, std::string help, std::function<double()> value);
    App& counter_metric(std::string name, std::string help, std::function<double()> value);
    /// Labelled ones: `samples` lists every series at scrape time (same rules as `value`); a sample with another
    /// number of labels than `label_names` is left out, the rest are shown sorted by label values. Label names
    /// match [a-zA-Z_][a-zA-Z0-9_]*, not starting with "__", each once; else std::invalid_argument.
    App& gauge_metric(std::string name, std::string help, std::vector<std::string> label_names,
                      std::function<std::vector<MetricSample>()> samples);
    App& counter_metric(std::string name, std::string help, std::vector<std::string> label_names,
                        std::function<std::vector<MetricSample>()> samples);
    /// `upper_bounds` in seconds, strictly increasing (at most 256); throws std::invalid_argument otherwise.
    DurationHistogram duration_histogram(std::string name, std::string help, std::vector<double> upper_bounds);

    /// Serves the route template `pattern` without credentials or rate limits, like ServerOptions::auth_public_paths
    /// (a no-op while authentication and rate limits are off). Call before start().
    App& auth_public_route(std::string_view pattern);
    /// Sets ServerOptions::auth_resource_metadata: each 401 of the engine's authentication then carries
    /// `resource_metadata="<url>"` in WWW-Authenticate. Call before start(); throws std::invalid_argument for a URL
    /// that is not absolute http(s) or holds '"', '\' or control characters.
    App& auth_resource_metadata(std::string_view url);

    /// Adds a TCP listener ("0.0.0.0", "::", "127.0.0.1", "::1", "localhost"). Port 0 picks a free port.
    /// A port another process listens on throws std::system_error (EADDRINUSE, "... address already in use
    /// ...") unless ServerOptions::reuse_port asks to share it.
    App& listen(std::string_view host, std::uint16_t port);
    /// Adds a Unix socket listener (a stale socket file is replaced).
    App& listen_unix(std::string_view path);

    /// Starts the I/O threads and returns at once.
    void start();
    /// Starts (if needed) and blocks until SIGINT/SIGTERM or stop(), then drains in-flight requests.
    /// Returns the process exit code (0 after a clean drain).
    int run();
    /// Asks the server to drain and stop. Thread-safe and async-signal-safe.
    void stop();
    /// Blocks until the server stopped (after stop()).
    void wait();

    /// The port of the first TCP listener (useful after listening on port 0).
    std::uint16_t port() const;
    const ServerOptions& options() const;

  private:
    std::unique_ptr<detail::AppImpl> impl_;
};

}  // namespace slipstream
