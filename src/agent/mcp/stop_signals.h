// BlockStopSignals: threads this folder starts (timers, the session store's database) never take SIGINT, SIGTERM
// or SIGHUP, so those reach the server's signalfd (a graceful stop) instead of ending the process.
#pragma once

#include <pthread.h>

#include <csignal>

namespace slipstream::mcp::detail {

/// While one lives, the calling thread blocks the stop signals; threads started meanwhile inherit the mask.
class BlockStopSignals {
  public:
    BlockStopSignals() {
        sigset_t set;
        sigemptyset(&set);
        sigaddset(&set, SIGINT);
        sigaddset(&set, SIGTERM);
        sigaddset(&set, SIGHUP);
        pthread_sigmask(SIG_BLOCK, &set, &saved_);
    }
    ~BlockStopSignals() { pthread_sigmask(SIG_SETMASK, &saved_, nullptr); }
    BlockStopSignals(const BlockStopSignals&) = delete;
    BlockStopSignals& operator=(const BlockStopSignals&) = delete;

  private:
    sigset_t saved_;
};

}  // namespace slipstream::mcp::detail
