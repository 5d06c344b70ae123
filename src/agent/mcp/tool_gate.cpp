// ToolGate::enter() and leave().
#include "agent/mcp/tool_gate.h"

#include <utility>

namespace slipstream::mcp::detail {

void ToolGate::enter(std::function<void()> start) {
    {
        std::lock_guard lock(mu_);
        if (max_ != 0 && running_ >= max_) {
            waiting_.push_back(std::move(start));
            return;
        }
        ++running_;
    }
    start();
}

void ToolGate::leave() {
    std::function<void()> next;
    {
        std::lock_guard lock(mu_);
        if (waiting_.empty()) {
            if (running_ > 0) --running_;
            return;
        }
        next = std::move(waiting_.front());  // the slot passes to the next call
        waiting_.pop_front();
    }
    next();
}

}  // namespace slipstream::mcp::detail
