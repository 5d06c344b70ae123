// Timers: one thread running callbacks at deadlines (tool timeouts, session sweeps), cancellable by id.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <thread>
#include <utility>

namespace slipstream::mcp::detail {

/// Thread-safe. The thread starts with the first schedule(); callbacks run on it, one at a time, and must be
/// quick. The destructor stops the thread (joined, or left to end by itself when the destructor runs on it, from
/// a callback that held the last reference) and drops the callbacks not yet run.
class Timers {
  public:
    Timers();
    ~Timers();
    Timers(const Timers&) = delete;
    Timers& operator=(const Timers&) = delete;

    /// Runs `fn` after `ms`; returns an id for cancel() (never 0).
    std::uint64_t schedule(std::uint32_t ms, std::function<void()> fn);
    /// Drops a callback not yet run; no-op for an unknown id or 0.
    void cancel(std::uint64_t id);
    /// Stops the thread (waiting for a running callback unless called from it) and drops every callback; later
    /// schedule() calls return 0 and run nothing. Idempotent.
    void shutdown();

  private:
    using Clock = std::chrono::steady_clock;
    // What the thread uses: shared with it, so it outlives a Timers destroyed on that thread.
    struct State {
        std::mutex mu;
        std::condition_variable cv;
        std::map<std::pair<Clock::time_point, std::uint64_t>, std::function<void()>> due;
        std::map<std::uint64_t, Clock::time_point> by_id;
        std::uint64_t next_id = 1;
        bool stop = false;
    };
    static void run(const std::shared_ptr<State>& state);

    std::shared_ptr<State> state_;
    std::thread thread_;
};

}  // namespace slipstream::mcp::detail
