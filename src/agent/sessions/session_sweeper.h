// SessionSweeper: deletes expired sessions every interval, on a thread of its own.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <thread>

#include "agent/sessions/session_store.h"

namespace slipstream::agent::sessions {

/// Calls SessionStore::sweep() every `interval_ms` (the first after one interval) until destroyed; a failed
/// sweep is logged and tried again at the next interval. Expired sessions are invisible before they are swept.
/// Also wakes every follower of the store (SessionChanges::publish_all) at least every kRecheckMs, so a stream
/// of an expired session ends and a change whose NOTIFY was lost is read.
class SessionSweeper {
  public:
    static constexpr std::int64_t kRecheckMs = 5'000;

    SessionSweeper(std::shared_ptr<SessionStore> store, std::int64_t interval_ms);
    /// Stops the thread (a sweep in flight still completes on the database's thread).
    ~SessionSweeper();
    SessionSweeper(const SessionSweeper&) = delete;
    SessionSweeper& operator=(const SessionSweeper&) = delete;

  private:
    void loop();

    std::shared_ptr<SessionStore> store_;
    std::int64_t interval_ms_;
    std::mutex mutex_;
    std::condition_variable wake_;
    bool stop_ = false;
    std::thread thread_;
};

}  // namespace slipstream::agent::sessions
