// DecideSweeper: a timed loop around DecideStore::sweep(), one sweep at a time.
#include "agent/decide/decide_sweeper.h"

#include <chrono>
#include <string>

#include "base/log.h"

namespace slipstream::agent::decide {

DecideSweeper::DecideSweeper(std::shared_ptr<DecideStore> store, std::int64_t interval_ms)
    : store_(std::move(store)), interval_ms_(interval_ms), thread_([this] { loop(); }) {}

DecideSweeper::~DecideSweeper() {
    {
        std::lock_guard<std::mutex> lock(mutex_);
        stop_ = true;
    }
    wake_.notify_all();
    thread_.join();
}

void DecideSweeper::loop() {
    std::unique_lock<std::mutex> lock(mutex_);
    while (!wake_.wait_for(lock, std::chrono::milliseconds(interval_ms_), [this] { return stop_; })) {
        sweeping_ = true;
        lock.unlock();
        store_->sweep([this](DecideResult<std::int64_t> swept) {
            if (!swept.is_ok())
                base::log_message(base::LogLevel::kWarn, "decide sweep failed: " + swept.error().detail);
            std::lock_guard<std::mutex> done(mutex_);
            sweeping_ = false;
            wake_.notify_all();
        });
        lock.lock();
        // One sweep at a time; the destructor waits for it too (its callback uses this object).
        wake_.wait(lock, [this] { return !sweeping_; });
    }
}

}  // namespace slipstream::agent::decide
