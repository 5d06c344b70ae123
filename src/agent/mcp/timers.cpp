// Timers: an ordered map of deadlines served by one thread.
#include "agent/mcp/timers.h"

namespace slipstream::mcp::detail {

Timers::~Timers() {
    {
        std::lock_guard lock(mu_);
        stop_ = true;
    }
    cv_.notify_all();
    if (thread_.joinable()) thread_.join();
}

std::uint64_t Timers::schedule(std::uint32_t ms, std::function<void()> fn) {
    std::lock_guard lock(mu_);
    const std::uint64_t id = next_id_++;
    const Clock::time_point at = Clock::now() + std::chrono::milliseconds(ms);
    const bool first = due_.empty() || at < due_.begin()->first.first;
    due_.emplace(std::make_pair(at, id), std::move(fn));
    by_id_.emplace(id, at);
    if (!thread_.joinable()) thread_ = std::thread([this] { run(); });
    if (first) cv_.notify_all();
    return id;
}

void Timers::cancel(std::uint64_t id) {
    std::function<void()> dropped;  // destroyed outside the lock: it may own the last reference to a call
    std::lock_guard lock(mu_);
    auto it = by_id_.find(id);
    if (it == by_id_.end()) return;
    auto due = due_.find(std::make_pair(it->second, id));
    if (due != due_.end()) {
        dropped = std::move(due->second);
        due_.erase(due);
    }
    by_id_.erase(it);
}

void Timers::run() {
    std::unique_lock lock(mu_);
    while (!stop_) {
        if (due_.empty()) {
            cv_.wait(lock);
            continue;
        }
        auto first = due_.begin();
        if (Clock::now() < first->first.first) {
            cv_.wait_until(lock, first->first.first);
            continue;
        }
        std::function<void()> fn = std::move(first->second);
        by_id_.erase(first->first.second);
        due_.erase(first);
        lock.unlock();
        fn();
        fn = nullptr;
        lock.lock();
    }
}

}  // namespace slipstream::mcp::detail
