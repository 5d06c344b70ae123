// The public App: route registration and lifecycle over Server.
#include "slipstream/app.h"

#include <cmath>
#include <stdexcept>

#include "metrics/histogram.h"
#include "server/server.h"

namespace slipstream {

namespace detail {
class AppImpl {
  public:
    explicit AppImpl(ServerOptions options) : server(std::move(options)) {}
    server::Server server;
    bool signals = false;
};
}  // namespace detail

App::App(ServerOptions options) : impl_(std::make_unique<detail::AppImpl>(std::move(options))) {}
App::~App() = default;

App& App::route(std::string_view method, std::string_view pattern, Handler handler) {
    impl_->server.routes().add(method, pattern, std::move(handler), nullptr);
    return *this;
}
App& App::route_async(std::string_view method, std::string_view pattern, AsyncHandler handler) {
    impl_->server.routes().add(method, pattern, nullptr, std::move(handler));
    return *this;
}
App& App::route_async(std::string_view method, std::string_view pattern, AsyncHandler handler, RouteSpec spec) {
    impl_->server.routes().add(method, pattern, nullptr, std::move(handler), server::RouteValidator::compile(spec));
    return *this;
}
App& App::route(std::string_view method, std::string_view pattern, Handler handler, RouteSpec spec) {
    impl_->server.routes().add(method, pattern, std::move(handler), nullptr, server::RouteValidator::compile(spec));
    return *this;
}
App& App::get(std::string_view pattern, Handler handler) {
    return route("GET", pattern, std::move(handler));
}
App& App::post(std::string_view pattern, Handler handler) {
    return route("POST", pattern, std::move(handler));
}
App& App::put(std::string_view pattern, Handler handler) {
    return route("PUT", pattern, std::move(handler));
}
App& App::patch(std::string_view pattern, Handler handler) {
    return route("PATCH", pattern, std::move(handler));
}
App& App::del(std::string_view pattern, Handler handler) {
    return route("DELETE", pattern, std::move(handler));
}

App& App::websocket(std::string_view pattern, WebSocketHandler handler) {
    impl_->server.routes().add_websocket(pattern, std::move(handler));
    return *this;
}

App& App::gauge_metric(std::string name, std::string help, std::function<double()> value) {
    impl_->server.registry().callback_gauge(std::move(name), std::move(help),
                                            [value = std::move(value)] { return std::optional<double>(value()); });
    return *this;
}

App& App::counter_metric(std::string name, std::string help, std::function<double()> value) {
    impl_->server.registry().callback_counter(std::move(name), std::move(help),
                                              [value = std::move(value)] { return std::optional<double>(value()); });
    return *this;
}

namespace {
metrics::SamplesCallback labeled(std::function<std::vector<MetricSample>()> samples) {
    return [samples = std::move(samples)] {
        std::vector<MetricSample> in = samples();
        std::vector<metrics::LabeledValue> out;
        out.reserve(in.size());
        for (MetricSample& s : in)
            out.push_back(metrics::LabeledValue{std::move(s.labels), s.value});
        return out;
    };
}
}  // namespace

App& App::gauge_metric(std::string name, std::string help, std::vector<std::string> label_names,
                       std::function<std::vector<MetricSample>()> samples) {
    impl_->server.registry().callback_gauge_family(std::move(name), std::move(help), std::move(label_names),
                                                   labeled(std::move(samples)));
    return *this;
}

App& App::counter_metric(std::string name, std::string help, std::vector<std::string> label_names,
                         std::function<std::vector<MetricSample>()> samples) {
    impl_->server.registry().callback_counter_family(std::move(name), std::move(help), std::move(label_names),
                                                     labeled(std::move(samples)));
    return *this;
}

DurationHistogram App::duration_histogram(std::string name, std::string help, std::vector<double> upper_bounds) {
    std::vector<std::uint64_t> ns;
    for (double b : upper_bounds) {
        if (!(b > 0) || b > 1e9) throw std::invalid_argument("duration_histogram bounds must be in (0, 1e9] seconds");
        ns.push_back(static_cast<std::uint64_t>(std::llround(b * 1e9)));
    }
    metrics::Buckets buckets(std::move(ns), metrics::Buckets::kNanosToSeconds);
    return DurationHistogram(&impl_->server.registry().histogram(std::move(name), std::move(help), buckets));
}

void DurationHistogram::observe(double seconds) const {
    if (histogram_ != nullptr) histogram_->observe(seconds > 0 ? static_cast<std::uint64_t>(seconds * 1e9) : 0);
}

App& App::auth_public_route(std::string_view pattern) {
    impl_->server.add_public_route(pattern);
    return *this;
}

App& App::auth_resource_metadata(std::string_view url) {
    impl_->server.set_resource_metadata(url);
    return *this;
}

App& App::readiness_check(std::string name, std::function<bool()> check) {
    impl_->server.add_readiness_check(std::move(name), std::move(check));
    return *this;
}

App& App::listen(std::string_view host, std::uint16_t port) {
    impl_->server.listen_tcp(host, port);
    return *this;
}
App& App::listen_unix(std::string_view path) {
    impl_->server.listen_unix(path);
    return *this;
}

void App::start() {
    impl_->server.start(impl_->signals);
}

int App::run() {
    impl_->signals = true;
    server::Server::block_stop_signals();
    start();
    return impl_->server.wait();
}

void App::stop() {
    impl_->server.stop();
}
void App::wait() {
    impl_->server.wait();
}
std::uint16_t App::port() const {
    return impl_->server.port();
}
const ServerOptions& App::options() const {
    return impl_->server.options();
}

}  // namespace slipstream
