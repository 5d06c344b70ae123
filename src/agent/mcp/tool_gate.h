// ToolGate: a tool's concurrency limit: calls beyond it wait in order.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <mutex>

namespace slipstream::mcp::detail {

/// Thread-safe. enter() runs `start` now when a slot is free, else queues it; leave() frees a slot and starts the
/// next queued call (on the calling thread). A queued start that is no longer wanted checks that itself.
class ToolGate {
  public:
    explicit ToolGate(std::uint32_t max_concurrency) : max_(max_concurrency) {}

    void enter(std::function<void()> start);
    void leave();

  private:
    const std::uint32_t max_;  // 0: no limit
    std::mutex mu_;
    std::uint32_t running_ = 0;
    std::deque<std::function<void()>> waiting_;
};

}  // namespace slipstream::mcp::detail
