// DecideSweeper: closes overdue decisions (the default reward after waitSeconds) on a thread of its own.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <thread>

#include "agent/decide/decide_store.h"

namespace slipstream::agent::decide {

/// Calls DecideStore::sweep() every `interval_ms` (the first after one interval; each closes at most 500
/// decisions) until destroyed; a failed sweep is logged and tried at the next interval.
class DecideSweeper {
  public:
    DecideSweeper(std::shared_ptr<DecideStore> store, std::int64_t interval_ms);
    /// Stops the thread, after the sweep in flight (if any) ended.
    ~DecideSweeper();
    DecideSweeper(const DecideSweeper&) = delete;
    DecideSweeper& operator=(const DecideSweeper&) = delete;

  private:
    void loop();

    std::shared_ptr<DecideStore> store_;
    std::int64_t interval_ms_;
    std::mutex mutex_;
    std::condition_variable wake_;
    bool stop_ = false;
    bool sweeping_ = false;
    std::thread thread_;
};

}  // namespace slipstream::agent::decide
