// Server lifecycle: threads, listeners, signal-driven graceful drain.
#include "server/server.h"

#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sys/eventfd.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include <condition_variable>
#include <mutex>
#include <stdexcept>
#include <system_error>

#include "base/log.h"
#include "metrics/process_metrics.h"
#include "metrics/thread_shard.h"
#include "net/event_loop.h"
#include "net/socket.h"
#include "server/h1/h1_session.h"
#include "server/h2/h2_session.h"

namespace slipstream::server {
namespace {

// A system_error whose what() is exactly the text given (std::system_error would append the errno text).
class ListenError : public std::system_error {
  public:
    ListenError(int code, std::string what)
        : std::system_error(code, std::generic_category()), what_(std::move(what)) {}
    const char* what() const noexcept override { return what_.c_str(); }

  private:
    std::string what_;
};

[[noreturn]] void throw_status(const std::string& what, const base::Status& s) {
    int code = s.is_already_exists() ? EADDRINUSE : s.is_unavailable() ? EADDRNOTAVAIL : EINVAL;
    throw ListenError(code, what + ": " + s.message());
}

unsigned resolve_threads(unsigned requested) {
    if (requested > 0) return requested;
    unsigned n = std::thread::hardware_concurrency();
    return n == 0 ? 1 : n;
}

http::h1::Limits limits_from(const ServerOptions& o) {
    http::h1::Limits l;
    l.max_request_line = o.max_request_line;
    l.max_header_bytes = o.max_header_bytes;
    l.max_header_count = o.max_headers;
    l.max_body = o.max_body_bytes;
    return l;
}

}  // namespace

Server::Server(ServerOptions options) : threads_(resolve_threads(options.threads)) {
    shared_.options = std::move(options);
    cors_ = policy::cors::CorsPolicy::compile(shared_.options);  // throws for bad options, before anything is opened
    shared_.cors = cors_.get();
    access_ = std::make_unique<AccessPolicy>(shared_.options, registry_);  // throws for bad options or files
    if (access_->active()) {
        for (const std::string* probe : {&shared_.options.health_path, &shared_.options.livez_path,
                                         &shared_.options.readyz_path, &shared_.options.metrics_path})
            if (!probe->empty()) access_->add_public_route(*probe);
        shared_.access = access_.get();
    }
    if (shared_.options.max_connections_per_ip > 0) {
        per_address_ = std::make_unique<AddressConnections>(shared_.options.max_connections_per_ip);
        shared_.per_address = per_address_.get();
    }
    shared_.options.threads = threads_;
    shared_.limits = limits_from(shared_.options);
    shared_.routes = &routes_;
    shared_.sessions = {&H1Session::open, &H2Session::start};
    shared_.metrics = &metrics_;
    metrics::register_process_metrics(registry_);
    registry_.callback_gauge("slipstream_connections_open", "Open client connections.",
                             [this] { return static_cast<double>(shared_.connections.load()); });
    shared_.handlers = std::make_shared<HandlerCount>(shared_.options.max_handlers_in_flight);
    registry_.callback_gauge("slipstream_handlers_running",
                             "Asynchronous handlers running (their streams reset or connections closed included).",
                             [h = shared_.handlers] { return static_cast<double>(h->running()); });
    builtins_.registry = &registry_;
    builtins_.draining = &shared_.draining;
    listeners_.resize(threads_);
    stop_fd_ = ::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    if (stop_fd_ < 0) throw std::system_error(errno, std::generic_category(), "eventfd");
    net::ignore_sigpipe();
}

Server::~Server() {
    if (started_ && !joined_) {
        stop();
        wait();
    }
    if (stop_fd_ >= 0) ::close(stop_fd_);
}

namespace {

net::tls::TlsConfig tls_config(const ServerOptions& o) {
    net::tls::TlsConfig c;
    c.cert_file = o.tls_cert_file;
    c.key_file = o.tls_key_file;
    c.client_ca_file = o.tls_client_ca_file;
    if (o.http2) c.alpn.emplace_back("h2");
    c.alpn.emplace_back("http/1.1");
    return c;
}

}  // namespace

void Server::ensure_tls() {
    const ServerOptions& o = shared_.options;
    if (tls_ || (o.tls_cert_file.empty() && o.tls_key_file.empty() && o.tls_client_ca_file.empty())) return;
    auto ctx = net::tls::TlsContext::create(tls_config(o));
    if (!ctx.is_ok()) throw std::invalid_argument(ctx.status().message());
    tls_ = std::make_unique<net::tls::TlsContextStore>(std::move(ctx).value());
    shared_.tls = tls_.get();
}

bool Server::reload_tls() {
    if (!tls_) return false;
    auto ctx = net::tls::TlsContext::create(tls_config(shared_.options), tls_->current().get());
    if (!ctx.is_ok()) {
        base::log_message(base::LogLevel::kError,
                          "tls reload failed, keeping the current certificate: " + ctx.status().message());
        return false;
    }
    tls_->replace(std::move(ctx).value());
    base::log_message(base::LogLevel::kInfo, "tls: certificate reloaded");
    return true;
}

void Server::listen_tcp(std::string_view host, std::uint16_t port) {
    if (started_) throw std::logic_error("listen after start");
    ensure_tls();
    net::ListenOptions listen_options;
    listen_options.exclusive = !shared_.options.reuse_port;  // another process on the port fails the start
    auto group = net::listen_tcp_group(host, port, threads_, listen_options);
    if (!group.is_ok()) {
        const bool v6 = host.find(':') != std::string_view::npos;
        const std::string address = (v6 ? "[" : "") + std::string(host) + (v6 ? "]:" : ":") + std::to_string(port);
        if (group.status().is_already_exists()) {
            throw ListenError(EADDRINUSE, "listen on " + address +
                                              ": address already in use (another process listens there; "
                                              "--reuse-port / reuse_port=True shares the port on purpose)");
        }
        throw_status("listen on " + address, group.status());
    }
    if (first_port_ == 0) first_port_ = (*group)[0].local_port();
    for (unsigned i = 0; i < threads_; ++i)
        listeners_[i].push_back(std::move((*group)[i]));
}

void Server::listen_unix(std::string_view path) {
    if (started_) throw std::logic_error("listen after start");
    ensure_tls();
    auto l = net::listen_unix(std::string(path));
    if (!l.is_ok()) throw_status("listen on " + std::string(path), l.status());
    listeners_[0].push_back(std::move(l).value());
}

void Server::add_public_route(std::string_view pattern) {
    if (started_) throw std::logic_error("public routes are added before start");
    if (access_ != nullptr) access_->add_public_route(pattern);
}

void Server::set_resource_metadata(std::string_view url) {
    if (started_) throw std::logic_error("the resource metadata URL is set before start");
    AccessPolicy::check_resource_metadata(url);
    shared_.options.auth_resource_metadata = url;
    if (access_ != nullptr) access_->set_resource_metadata(url);
}

void Server::add_readiness_check(std::string name, std::function<bool()> check) {
    if (started_) throw std::logic_error("readiness checks are added before start");
    builtins_.checks.push_back({std::move(name), std::move(check)});
}

void Server::block_stop_signals() {
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGHUP);
    pthread_sigmask(SIG_BLOCK, &set, nullptr);
}

void Server::start(bool handle_signals) {
    if (started_) return;
    ensure_tls();
    if (shared_.options.io_uring) {
        base::Status ring = net::EventLoop::io_uring_support();
        if (!ring.is_ok()) throw std::runtime_error("--io-uring cannot be used: " + ring.message());
    }
    started_ = true;
    register_builtin_routes(routes_, shared_.options, builtins_);
    if (shared_.options.access_log) {
        access_log_ = std::make_unique<AccessLog>(shared_.options.access_log_fd, 8 * 1024 * 1024,
                                                  shared_.options.access_log_flush_ms, metrics_.log_dropped);
        shared_.access_log = access_log_.get();
    }
    for (unsigned i = 0; i < threads_; ++i) {
        auto w = std::make_unique<Worker>(shared_, clock_, i);
        for (auto& l : listeners_[i])
            w->add_listener(std::move(l));
        workers_.push_back(std::move(w));
    }
    listeners_.clear();
    for (unsigned i = 0; i < threads_; ++i) {
        io_threads_.emplace_back([this, i] {
            std::string name = "ss-io-" + std::to_string(i);
            pthread_setname_np(pthread_self(), name.c_str());
            metrics::set_this_thread_shard(i);  // no two I/O threads share a metrics shard
            workers_[i]->run();
        });
    }
    control_ = std::thread([this, handle_signals] { control_loop(handle_signals); });
}

void Server::stop() {
    std::uint64_t one = 1;
    ssize_t n = ::write(stop_fd_, &one, sizeof one);  // async-signal-safe
    (void)n;
}

void Server::control_loop(bool handle_signals) {
    int sig_fd = -1;
    if (handle_signals) {
        sigset_t set;
        sigemptyset(&set);
        sigaddset(&set, SIGINT);
        sigaddset(&set, SIGTERM);
        sigaddset(&set, SIGHUP);
        sig_fd = ::signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
    }
    // True for a stop request (stop() or SIGINT/SIGTERM); SIGHUP reloads the TLS files and is not one.
    bool by_signal = false;
    auto wait_event = [&](int timeout_ms) -> bool {
        pollfd fds[2] = {{stop_fd_, POLLIN, 0}, {sig_fd, POLLIN, 0}};
        int rc = ::poll(fds, sig_fd >= 0 ? 2 : 1, timeout_ms);
        if (rc <= 0) return false;
        bool stop = false;
        std::uint64_t v;
        if (fds[0].revents) {
            (void)!::read(stop_fd_, &v, sizeof v);
            stop = true;
        }
        if (sig_fd >= 0 && fds[1].revents) {
            signalfd_siginfo info;
            if (::read(sig_fd, &info, sizeof info) == sizeof info && info.ssi_signo == SIGHUP) {
                if (tls_) reload_tls();
            } else {
                stop = true;
                by_signal = true;
            }
        }
        return stop;
    };
    while (!wait_event(-1)) {
    }
    // A signal's drain is news for an operator; a stop() from the embedding program (a TestClient closing, an
    // application's own shutdown) is not.
    base::log_message(by_signal ? base::LogLevel::kInfo : base::LogLevel::kDebug, "draining");
    shared_.draining.store(true);

    // Drain: every worker stops accepting and finishes its connections; then the loops stop.
    struct DrainState {
        std::mutex m;
        std::condition_variable cv;
        std::size_t drained = 0;
    };
    auto state = std::make_shared<DrainState>();  // shared: a late callback may outlive this frame
    for (auto& w : workers_) {
        w->drain([state] {
            std::lock_guard lock(state->m);
            ++state->drained;
            state->cv.notify_all();
        });
    }
    auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(shared_.options.drain_timeout_ms);
    bool forced = false;
    for (;;) {
        {
            std::unique_lock lock(state->m);
            auto until = std::min(deadline, std::chrono::steady_clock::now() + std::chrono::milliseconds(50));
            if (state->cv.wait_until(lock, until, [&] { return state->drained == workers_.size(); })) break;
        }
        if (std::chrono::steady_clock::now() >= deadline) {
            base::log_message(base::LogLevel::kWarn, "drain deadline passed; closing remaining connections");
            forced = true;
            break;
        }
        if (wait_event(0)) {
            base::log_message(base::LogLevel::kWarn, "second stop request; exiting now");
            forced = true;
            break;
        }
    }
    for (auto& w : workers_) {
        if (forced) {
            w->abort_and_stop();  // streams still running are cut (no final chunk) and logged as aborted
        } else {
            w->stop();
        }
    }
    if (sig_fd >= 0) ::close(sig_fd);
    exit_code_.store(forced ? 1 : 0);
}

int Server::wait() {
    if (!started_ || joined_) return exit_code_.load();
    control_.join();
    for (auto& t : io_threads_)
        t.join();
    workers_.clear();
    shared_.access_log = nullptr;
    access_log_.reset();  // writes what is pending
    joined_ = true;
    return exit_code_.load();
}

}  // namespace slipstream::server
