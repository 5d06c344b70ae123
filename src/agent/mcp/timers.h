// Timers: one thread running callbacks at deadlines (tool timeouts), cancellable by id.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <thread>
#include <utility>

namespace slipstream::mcp::detail {

/// Thread-safe. The thread starts with the first schedule(); callbacks run on it, one at a time, and must be
/// quick. The destructor stops the thread and drops the callbacks not yet run.
class Timers {
  public:
    Timers() = default;
    ~Timers();
    Timers(const Timers&) = delete;
    Timers& operator=(const Timers&) = delete;

    /// Runs `fn` after `ms`; returns an id for cancel() (never 0).
    std::uint64_t schedule(std::uint32_t ms, std::function<void()> fn);
    /// Drops a callback not yet run; no-op for an unknown id or 0.
    void cancel(std::uint64_t id);

  private:
    void run();

    using Clock = std::chrono::steady_clock;
    std::mutex mu_;
    std::condition_variable cv_;
    std::map<std::pair<Clock::time_point, std::uint64_t>, std::function<void()>> due_;
    std::map<std::uint64_t, Clock::time_point> by_id_;
    std::uint64_t next_id_ = 1;
    bool stop_ = false;
    std::thread thread_;
};

}  // namespace slipstream::mcp::detail
