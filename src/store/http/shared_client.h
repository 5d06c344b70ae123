// SharedClient: the HTTP client for any thread: its own event loop thread, resolver workers and Client.
#pragma once

#include <atomic>
#include <cstddef>
#include <functional>
#include <memory>
#include <string>

#include "base/result.h"
#include "store/http/client.h"

namespace slipstream::store::http {

class SharedClientImpl;

struct SharedClientOptions {
    ClientOptions client;
    /// Threads running getaddrinfo (host names never block the client's loop).
    std::size_t resolver_threads = 2;
    /// The loop thread's name ("ss-http"); the resolver's are "<name>-dns-<i>".
    std::string thread_name = "ss-http";
};

/// One request started through a SharedClient. cancel(), pause() and resume() may be called from any thread, any
/// number of times, before or after the call ended or the client closed: each runs on the client's thread (at
/// once when called there, else posted in order after the start). Dropping the handle cancels nothing.
class SharedCall : public std::enable_shared_from_this<SharedCall> {
  public:
    explicit SharedCall(std::weak_ptr<SharedClientImpl> impl) : impl_(std::move(impl)) {}
    /// Call::cancel: on_end hears kCancelled (on the client's thread) unless it ended first.
    void cancel();
    /// Call::pause / resume: back-pressure from a consumer on another thread.
    void pause();
    void resume();
    /// on_end has run.
    bool done() const { return done_.load(std::memory_order_acquire); }
    /// Loop thread: the Call (null before it started or when refused at once).
    const std::shared_ptr<Call>& call() const { return call_; }

  private:
    friend class SharedClientImpl;
    friend class SharedClient;
    template <typename Fn>
    void run(Fn fn);

    std::weak_ptr<SharedClientImpl> impl_;
    std::shared_ptr<Call> call_;  // client thread
    bool start_paused_ = false;   // client thread: pause() ran before the call started
    std::atomic<bool> cancel_requested_{false};
    std::atomic<bool> done_{false};
};

/// Thread-safe. Requests run on the client's own loop thread (a Client with the options given, host names resolved
/// on its worker threads); every callback runs there, exactly as Client documents, so a caller hands results on
/// from there (a Responder, a queue). The destructor ends the calls in flight with kCancelled (their on_end runs on
/// the client's thread) and joins it; it must not run on that thread.
class SharedClient {
  public:
    /// Starts the threads (control plane: call at start-up). Errors: the TLS configuration's (an unreadable CA file)
    /// when options.client.tls is checked here, or kInternal when a thread cannot start.
    static base::Result<std::unique_ptr<SharedClient>> create(SharedClientOptions options = {});
    ~SharedClient();
    SharedClient(const SharedClient&) = delete;
    SharedClient& operator=(const SharedClient&) = delete;

    /// Client::start from any thread. Refused at once on the caller's thread (on_end with kCancelled) after the
    /// client closed.
    std::shared_ptr<SharedCall> start(Request request, ResponseCallbacks callbacks);
    /// Client::fetch from any thread; `done` runs on the client's thread.
    std::shared_ptr<SharedCall> fetch(Request request, std::function<void(base::Result<Response>)> done);
    /// The client's counters (waits for the client's thread unless called there; zeros once closed).
    ClientStats stats() const;
    /// True on the client's loop thread.
    bool in_client_thread() const;
    const ClientOptions& options() const;

  private:
    explicit SharedClient(std::shared_ptr<SharedClientImpl> impl) : impl_(std::move(impl)) {}
    std::shared_ptr<SharedClientImpl> impl_;
};

}  // namespace slipstream::store::http
