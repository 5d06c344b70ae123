// SessionSweeper: a timed loop around SessionStore::sweep().
#include "agent/sessions/session_sweeper.h"

#include <algorithm>
#include <chrono>
#include <string>

#include "base/log.h"

namespace slipstream::agent::sessions {

SessionSweeper::SessionSweeper(std::shared_ptr<SessionStore> store, std::int64_t interval_ms)
    : store_(std::move(store)), interval_ms_(interval_ms), thread_([this] { loop(); }) {}

SessionSweeper::~SessionSweeper() {
    {
        std::lock_guard<std::mutex> lock(mutex_);
        stop_ = true;
    }
    wake_.notify_all();
    thread_.join();
}

void SessionSweeper::loop() {
    // Ticks at most kRecheckMs apart: each wakes every follower of the store (a session that expired ends its
    // streams; a change whose NOTIFY was lost is read), and the sweep runs once its interval has passed.
    const std::int64_t tick = std::min<std::int64_t>(interval_ms_, kRecheckMs);
    std::int64_t since_sweep = 0;
    std::unique_lock<std::mutex> lock(mutex_);
    while (!wake_.wait_for(lock, std::chrono::milliseconds(tick), [this] { return stop_; })) {
        store_->changes().publish_all();
        since_sweep += tick;
        if (since_sweep < interval_ms_) continue;
        since_sweep = 0;
        store_->sweep([](SessionResult<std::int64_t> swept) {
            if (!swept.is_ok())
                base::log_message(base::LogLevel::kWarn, "session sweep failed: " + swept.error().detail);
            else if (swept.value() > 0)
                base::log_message(base::LogLevel::kDebug,
                                  "session sweep deleted " + std::to_string(swept.value()) + " expired sessions");
        });
    }
}

}  // namespace slipstream::agent::sessions
