// SharedClient: the loop thread, the resolver workers, start/fetch posted to the loop, thread-safe call handles.
#include "store/http/shared_client.h"

#include <pthread.h>

#include <future>
#include <mutex>
#include <system_error>
#include <thread>

#include "base/clock.h"
#include "net/event_loop.h"
#include "net/tls/tls_context.h"

namespace slipstream::store::http {

class SharedClientImpl {
  public:
    explicit SharedClientImpl(SharedClientOptions options) : options_(std::move(options)), loop_(clock_) {}
    ~SharedClientImpl() { stop(); }

    base::Status start() {
        if (options_.resolver_threads > 0) {
            resolver_ = std::make_unique<WorkerPool>(WorkerPoolOptions{
                .threads = options_.resolver_threads, .max_queue = 1024, .name = options_.thread_name + "-dns"});
        }
        client_ = std::make_unique<Client>(loop_, options_.client, resolver_.get());
        // The loop thread owns the loop before start() returns: until then is_in_loop_thread() would say true on
        // the constructing thread, and a call started there would run off the loop.
        std::promise<void> attached;
        std::future<void> ready = attached.get_future();
        try {
            thread_ = std::thread([this, &attached] {
                std::string name = options_.thread_name.substr(0, 15);
                pthread_setname_np(pthread_self(), name.c_str());
                loop_.attach_to_current_thread();
                attached.set_value();
                loop_.run();
            });
        } catch (const std::system_error& e) {
            return base::Status::internal(std::string("http client: cannot start its thread: ") + e.what());
        }
        ready.wait();
        return base::Status::ok();
    }

    void stop() {
        {
            std::lock_guard<std::mutex> lock(mutex_);
            if (stopped_) return;
            stopped_ = true;
            if (!thread_.joinable()) return;
            loop_.post([this] {
                client_.reset();  // calls in flight hear kCancelled, here on the loop thread
                loop_.stop();
            });
        }
        thread_.join();
        resolver_.reset();  // answers to the stopped loop are never run
    }

    bool post(net::Task task) {
        std::lock_guard<std::mutex> lock(mutex_);
        if (stopped_) return false;
        loop_.post(std::move(task));
        return true;
    }

    bool in_loop() const { return loop_.is_in_loop_thread(); }
    Client* client() { return client_.get(); }
    const SharedClientOptions& options() const { return options_; }

    // Loop thread: starts `sc`'s call.
    void begin(const std::shared_ptr<SharedCall>& sc, Request request, ResponseCallbacks callbacks) {
        std::weak_ptr<SharedCall> weak = sc;
        auto end = std::move(callbacks.on_end);
        callbacks.on_end = [weak, end = std::move(end)](base::Status status) {
            if (auto s = weak.lock()) s->done_.store(true, std::memory_order_release);
            if (end) end(std::move(status));
        };
        if (client_ == nullptr || sc->cancel_requested_.load()) {
            sc->done_.store(true, std::memory_order_release);
            if (callbacks.on_end) callbacks.on_end(base::Status::cancelled("request cancelled"));
            return;
        }
        sc->call_ = client_->start(std::move(request), std::move(callbacks));
        if (sc->start_paused_) sc->call_->pause();
    }

  private:
    SharedClientOptions options_;
    base::SystemClock clock_;
    net::EventLoop loop_;
    std::unique_ptr<WorkerPool> resolver_;
    std::unique_ptr<Client> client_;  // loop thread
    std::thread thread_;
    std::mutex mutex_;
    bool stopped_ = false;
};

template <typename Fn>
void SharedCall::run(Fn fn) {
    std::shared_ptr<SharedClientImpl> impl = impl_.lock();
    if (!impl) return;
    if (impl->in_loop()) {
        fn();
        return;
    }
    impl->post(std::move(fn));
}

void SharedCall::cancel() {
    if (cancel_requested_.exchange(true)) return;
    run([self = shared_from_this()] {
        if (self->call_) self->call_->cancel();
    });
}

void SharedCall::pause() {
    run([self = shared_from_this()] {
        if (self->call_) {
            self->call_->pause();
        } else {
            self->start_paused_ = true;
        }
    });
}

void SharedCall::resume() {
    run([self = shared_from_this()] {
        if (self->call_) {
            self->call_->resume();
        } else {
            self->start_paused_ = false;
        }
    });
}

base::Result<std::unique_ptr<SharedClient>> SharedClient::create(SharedClientOptions options) {
    for (const std::string& p : options.client.tls.alpn) {
        if (p != "http/1.1" && p != "h2")
            return base::Status::invalid_argument("http client: ALPN '" + p + "' is not spoken here");
    }
    // Check the TLS configuration now (a bad CA file fails at start-up, not at the first https request).
    auto tls = net::tls::TlsContext::create_client(options.client.tls);
    if (!tls.is_ok()) return tls.status();
    auto impl = std::make_shared<SharedClientImpl>(std::move(options));
    SLIPSTREAM_RETURN_IF_ERROR(impl->start());
    return std::unique_ptr<SharedClient>(new SharedClient(std::move(impl)));
}

SharedClient::~SharedClient() {
    impl_->stop();
}

std::shared_ptr<SharedCall> SharedClient::start(Request request, ResponseCallbacks callbacks) {
    auto sc = std::make_shared<SharedCall>(impl_);
    if (impl_->in_loop()) {
        impl_->begin(sc, std::move(request), std::move(callbacks));
        return sc;
    }
    // The task owns what it needs; when the client is closed it is refused here and now.
    auto pending = std::make_shared<std::pair<Request, ResponseCallbacks>>(std::move(request), std::move(callbacks));
    SharedClientImpl* impl = impl_.get();
    if (!impl_->post([impl, sc, pending] { impl->begin(sc, std::move(pending->first), std::move(pending->second)); })) {
        sc->done_.store(true, std::memory_order_release);
        if (pending->second.on_end) pending->second.on_end(base::Status::cancelled("http client closed"));
    }
    return sc;
}

std::shared_ptr<SharedCall> SharedClient::fetch(Request request, std::function<void(base::Result<Response>)> done) {
    return start(std::move(request), buffered_response(std::move(done)));
}

ClientStats SharedClient::stats() const {
    if (impl_->in_loop()) return impl_->client() != nullptr ? impl_->client()->stats() : ClientStats{};
    auto promise = std::make_shared<std::promise<ClientStats>>();
    std::future<ClientStats> f = promise->get_future();
    SharedClientImpl* impl = impl_.get();
    if (!impl_->post([impl, promise] {
            promise->set_value(impl->client() != nullptr ? impl->client()->stats() : ClientStats{});
        }))
        return {};
    return f.get();
}

bool SharedClient::in_client_thread() const {
    return impl_->in_loop();
}

const ClientOptions& SharedClient::options() const {
    return impl_->options().client;
}

}  // namespace slipstream::store::http
