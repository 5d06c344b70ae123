// Worker: accepting, shedding past the connection caps (total, per address), and draining on one I/O thread.
#include "server/conn/worker.h"

#include <sys/epoll.h>

#include <cstdio>
#include <string>

#include "base/log.h"
#include "net/socket.h"
#include "server/conn/connection.h"

namespace slipstream::server {
namespace {
constexpr std::size_t kAcceptBatch = 64;
constexpr std::int64_t kAcceptBackoffNanos = 100 * base::kNanosPerMilli;
constexpr std::int64_t kTlsTrimNanos = 1000 * base::kNanosPerMilli;  // idle TLS buffers are freed within 1-2 s
constexpr std::string_view kShedResponse =
    "HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/problem+json\r\nContent-Length: 97\r\n"
    "Connection: close\r\n\r\n"
    R"({"type":"about:blank","title":"Service Unavailable","status":503,"detail":"too many connections"})";
static_assert(kShedResponse.size() - kShedResponse.find("\r\n\r\n") - 4 == 97);
constexpr std::string_view kPerAddressResponse =
    "HTTP/1.1 429 Too Many Requests\r\nContent-Type: application/problem+json\r\nContent-Length: 113\r\n"
    "Connection: close\r\n\r\n"
    R"({"type":"about:blank","title":"Too Many Requests","status":429,"detail":"too many connections from this address"})";
static_assert(kPerAddressResponse.size() - kPerAddressResponse.find("\r\n\r\n") - 4 == 113);
}  // namespace

struct Worker::ListenerHandler final : net::IoHandler {
    ListenerHandler(Worker& w, net::Listener l) : worker(w), listener(std::move(l)) {
        backoff.set_callback([this] { worker.loop().modify(listener.fd(), EPOLLIN).ignore_error(); });
    }
    void on_io(std::uint32_t) override { worker.on_accept(*this); }

    Worker& worker;
    net::Listener listener;
    net::Timer backoff;
};

Worker::Worker(ServerShared& shared, const base::Clock& clock, unsigned index)
    : shared_(shared),
      loop_(clock,
            [&] {
                net::EventLoopOptions o;
                o.io_uring = shared.options.io_uring;  // --io-uring
                return o;
            }()),
      loop_ref_(std::make_shared<slipstream::detail::LoopRef>(&loop_)),
      index_(index),
      headers_(std::max<std::size_t>(shared.limits.max_header_count, 1)),
      read_buffer_(std::make_unique_for_overwrite<char[]>(kReadBufferSize)),
      write_buffer_(std::make_unique_for_overwrite<char[]>(kWriteScratchSize)),
      metrics_cache_(*shared.metrics) {
    log_timer_.set_callback([this] { hand_over_log(); });
    tls_trim_timer_.set_callback([this] {
        for (auto& [ptr, conn] : connections_)
            ptr->release_idle_buffers();
        loop_.schedule_after(tls_trim_timer_, kTlsTrimNanos);
    });
}

Worker::~Worker() {
    loop_ref_->clear();
    for (auto& [ptr, conn] : connections_)
        (void)ptr;
    connections_.clear();
    for (auto& lh : listeners_)
        loop_.remove(lh->listener.fd()).ignore_error();
    hand_over_log();  // the last records (the I/O thread has stopped; the access log outlives the workers)
}

void Worker::add_listener(net::Listener listener) {
    listeners_.push_back(std::make_unique<ListenerHandler>(*this, std::move(listener)));
}

void Worker::run() {
    // Registration belongs to the loop thread, which run() makes of the calling thread.
    loop_.post([this] {
        for (auto& lh : listeners_) {
            base::Status s = loop_.add(lh->listener.fd(), EPOLLIN, lh.get());
            if (!s.is_ok()) base::log_message(base::LogLevel::kError, "listener registration failed: " + s.to_string());
        }
        if (shared_.tls != nullptr) loop_.schedule_after(tls_trim_timer_, kTlsTrimNanos);
    });
    loop_.run();
}

void Worker::on_accept(ListenerHandler& lh) {
    base::Status s = lh.listener.accept_batch(kAcceptBatch, [this](net::Accepted&& a) {
        if (draining_) return;  // closed right away: the listener is going
        std::size_t open = shared_.connections.fetch_add(1, std::memory_order_relaxed);
        if (open >= shared_.options.max_connections) {
            shared_.connections.fetch_sub(1, std::memory_order_relaxed);
            shared_.metrics->shed.inc();
            refuse(std::move(a.fd), kShedResponse);
            return;
        }
        if (shared_.per_address != nullptr && !shared_.per_address->try_acquire(a.peer)) {
            shared_.connections.fetch_sub(1, std::memory_order_relaxed);
            shared_.metrics->refused_per_ip.inc();
            refuse(std::move(a.fd), kPerAddressResponse);
            return;
        }
        // From here every path that drops the connection before it is registered gives its slot back.
        auto give_back = [&] {
            shared_.connections.fetch_sub(1, std::memory_order_relaxed);
            if (shared_.per_address != nullptr) shared_.per_address->release(a.peer);
        };
        shared_.metrics->accepted.inc();
        std::unique_ptr<net::tls::TlsStream> tls;
        if (shared_.tls != nullptr) {
            auto stream = net::tls::TlsStream::accept(shared_.tls->current(), a.fd.get());
            if (!stream.is_ok()) {
                base::log_message(base::LogLevel::kError, stream.status().to_string());
                give_back();
                return;
            }
            tls = std::move(stream).value();
        }
        auto conn = std::make_unique<Connection>(*this, std::move(a.fd), a.peer, std::move(tls));
        Connection* raw = conn.get();
        if (!raw->start()) {
            give_back();
            return;
        }
        connections_.emplace(raw, std::move(conn));
    });
    if (s.is_resource_exhausted()) {
        // Out of fds: stop watching the listener for a moment instead of spinning on it.
        base::log_message(base::LogLevel::kWarn, "accept: " + s.message() + "; pausing accepts");
        loop_.modify(lh.listener.fd(), 0).ignore_error();
        loop_.schedule_after(lh.backoff, kAcceptBackoffNanos);
    } else if (!s.is_ok()) {
        base::log_message(base::LogLevel::kError, "accept: " + s.to_string());
    }
}

void Worker::refuse(net::Fd fd, std::string_view response) {
    // Best effort, never blocks: a fresh socket's send buffer takes these few bytes.
    (void)net::write_some(fd.get(), response);
    net::shutdown_write(fd.get()).ignore_error();
}

void Worker::refresh_date() {
    // The wall clock is read after the loop's now() was taken, so the second it shows lasts at least the
    // rest of that second measured from now(): the text is never stale for a request of this loop.
    const base::MonoNanos now = loop_.now();
    const std::int64_t wall = loop_.clock().wall_now();
    date_text_ = date_cache_.get(wall);
    std::int64_t into_second = wall % base::kNanosPerSecond;
    if (into_second < 0) into_second += base::kNanosPerSecond;
    date_valid_until_ = now + (base::kNanosPerSecond - into_second);
}

void Worker::retire(Connection* connection) {
    shared_.connections.fetch_sub(1, std::memory_order_relaxed);
    if (shared_.per_address != nullptr) shared_.per_address->release(connection->peer());
    shared_.metrics->closed.inc();
    loop_.defer([this, connection] {
        connections_.erase(connection);
        maybe_drained();
    });
}

std::int64_t Worker::wall_at(base::MonoNanos mono) {
    // Wall time derived from the monotonic reading the caller already has; resampled once a second.
    if (mono - wall_sampled_at_ > base::kNanosPerSecond || wall_sampled_at_ == 0) {
        wall_sampled_at_ = mono;
        wall_offset_ = loop_.clock().wall_now() - base::mono_now();
    }
    return mono + wall_offset_;
}

void Worker::observe(const RequestRecord& r, int status, std::size_t response_bytes, const net::SocketAddress& peer,
                     bool aborted) {
    base::MonoNanos end = base::mono_now();
    base::MonoNanos elapsed = end - r.start;
    if (shared_.options.request_metrics) {
        const RequestCounters& c = metrics_cache_.get(r.route_key, r.route, r.method, status);
        c.requests.inc();
        c.duration.observe(static_cast<std::uint64_t>(elapsed > 0 ? elapsed : 0));
        if (r.request_bytes) c.request_bytes.inc(r.request_bytes);
        c.response_bytes.inc(response_bytes);
    }
    if (shared_.access_log == nullptr) return;

    // Raw fields only; the writer thread formats the JSON line. Handed over every flush interval (a timer
    // armed by the first record of a batch) or every kLogHandOverBytes: not per request, not per iteration.
    log_batch_.append({.wall_nanos = wall_at(end),
                       .duration_nanos = elapsed,
                       .response_bytes = response_bytes,
                       .status = status,
                       .aborted = aborted,
                       .method = r.method_text,
                       .route = r.route,
                       .path = r.path,
                       .request_id = r.request_id,
                       .trace_id = r.trace_id,
                       .peer = &peer});
    if (log_batch_.size() >= kLogHandOverBytes) {
        hand_over_log();
    } else if (!log_timer_.scheduled()) {
        loop_.schedule_after(log_timer_, std::int64_t{shared_.options.access_log_flush_ms} * base::kNanosPerMilli);
    }
}

void Worker::hand_over_log() {
    if (shared_.access_log != nullptr) shared_.access_log->submit(log_batch_);
}

void Worker::drain(std::function<void()> on_drained) {
    loop_.post([this, cb = std::move(on_drained)]() mutable {
        on_drained_ = std::move(cb);
        draining_ = true;
        // Accept what already waits in the backlog (those clients were accepted by the kernel), then close.
        for (auto& lh : listeners_)
            on_accept_pending(*lh);
        for (auto& lh : listeners_)
            loop_.remove(lh->listener.fd()).ignore_error();
        listeners_.clear();
        std::vector<Connection*> all;
        all.reserve(connections_.size());
        for (auto& [ptr, conn] : connections_)
            all.push_back(ptr);
        for (Connection* c : all)
            c->begin_drain();
        maybe_drained();
    });
}

void Worker::abort_and_stop() {
    loop_.post([this] {
        std::vector<Connection*> all;
        for (auto& [ptr, conn] : connections_)
            all.push_back(ptr);
        for (Connection* c : all)
            c->abort();
        // Stop at the end of the next iteration: the cancel callbacks the closes posted run first.
        loop_.defer([this] { loop_.defer([this] { loop_.stop(); }); });
    });
}

void Worker::on_accept_pending(ListenerHandler& lh) {
    bool was_draining = draining_;
    draining_ = false;
    on_accept(lh);
    draining_ = was_draining;
}

void Worker::maybe_drained() {
    if (draining_ && connections_.empty() && on_drained_) {
        auto cb = std::move(on_drained_);
        on_drained_ = nullptr;
        cb();
    }
}

}  // namespace slipstream::server
