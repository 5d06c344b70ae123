// Timers: an ordered map of deadlines served by one thread.
#include "agent/mcp/timers.h"

#include <vector>

#include "agent/mcp/stop_signals.h"

namespace slipstream::mcp::detail {

Timers::Timers() : state_(std::make_shared<State>()) {}

Timers::~Timers() {
    shutdown();
}

void Timers::shutdown() {
    std::map<std::pair<Clock::time_point, std::uint64_t>, std::function<void()>> dropped;
    {
        std::lock_guard lock(state_->mu);
        state_->stop = true;
        dropped.swap(state_->due);  // destroyed outside the lock: they may own the last reference to a call
        state_->by_id.clear();
    }
    state_->cv.notify_all();
    if (thread_.joinable()) {  // only schedule() starts it, and not once `stop` is set
        if (thread_.get_id() == std::this_thread::get_id())
            thread_.detach();
        else
            thread_.join();
    }
}

std::uint64_t Timers::schedule(std::uint32_t ms, std::function<void()> fn) {
    std::lock_guard lock(state_->mu);
    if (state_->stop) return 0;
    const std::uint64_t id = state_->next_id++;
    const Clock::time_point at = Clock::now() + std::chrono::milliseconds(ms);
    const bool first = state_->due.empty() || at < state_->due.begin()->first.first;
    state_->due.emplace(std::make_pair(at, id), std::move(fn));
    state_->by_id.emplace(id, at);
    if (!thread_.joinable()) {
        BlockStopSignals blocked;
        thread_ = std::thread([state = state_] { run(state); });
    }
    if (first) state_->cv.notify_all();
    return id;
}

void Timers::cancel(std::uint64_t id) {
    std::function<void()> dropped;  // destroyed after the lock is released (declared first)
    std::lock_guard lock(state_->mu);
    auto it = state_->by_id.find(id);
    if (it == state_->by_id.end()) return;
    auto due = state_->due.find(std::make_pair(it->second, id));
    if (due != state_->due.end()) {
        dropped = std::move(due->second);
        state_->due.erase(due);
    }
    state_->by_id.erase(it);
}

void Timers::run(const std::shared_ptr<State>& state) {
    std::unique_lock lock(state->mu);
    while (!state->stop) {
        if (state->due.empty()) {
            state->cv.wait(lock);
            continue;
        }
        auto first = state->due.begin();
        const Clock::time_point when = first->first.first;  // a copy: cancel() may erase the node while we wait
        if (Clock::now() < when) {
            state->cv.wait_until(lock, when);
            continue;
        }
        std::function<void()> fn = std::move(first->second);
        state->by_id.erase(first->first.second);
        state->due.erase(first);
        lock.unlock();
        fn();
        fn = nullptr;
        lock.lock();
    }
}

}  // namespace slipstream::mcp::detail
