// IoThreadPool: N threads named "ss-io-N", each running its own EventLoop.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <thread>
#include <vector>

#include "base/clock.h"
#include "net/event_loop.h"

namespace slipstream::net {

/// Owns `count` EventLoops and, once started, one thread per loop. Loops exist from construction, so tasks
/// can be posted before start() (they run when the thread starts). Control-plane object: construct, start
/// and stop it from one thread that is not one of its I/O threads.
class IoThreadPool {
  public:
    /// Per-thread hook, run on the I/O thread before its loop runs (e.g. register that thread's listener).
    using StartHook = std::function<void(EventLoop& loop, std::size_t index)>;

    /// Creates the loops (not running yet). Throws std::system_error if a loop cannot be created and
    /// std::invalid_argument when count is 0. `clock` must outlive the pool.
    IoThreadPool(std::size_t count, const base::Clock& clock, EventLoopOptions options = {});
    /// stop(), then destroys the loops.
    ~IoThreadPool();
    IoThreadPool(const IoThreadPool&) = delete;
    IoThreadPool& operator=(const IoThreadPool&) = delete;

    /// Starts the threads "ss-io-0" ... "ss-io-<count-1>"; each calls `on_start(loop, i)` (if set; it must
    /// not throw) and then loop.run(). Returns without waiting for them. Call once.
    void start(StartHook on_start = {});
    /// Stops every loop (each finishes its current iteration) and joins the threads. Idempotent.
    void stop();

    std::size_t size() const { return loops_.size(); }
    /// The i-th loop: post() to it from any thread; everything else only from inside it.
    EventLoop& loop(std::size_t i) { return *loops_[i]; }
    bool started() const { return !threads_.empty(); }

  private:
    std::vector<std::unique_ptr<EventLoop>> loops_;
    std::vector<std::thread> threads_;
};

}  // namespace slipstream::net
