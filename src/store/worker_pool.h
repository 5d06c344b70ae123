// WorkerPool: a bounded set of threads with a bounded queue, for blocking store work (SQLite, cancel requests).
#pragma once

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "base/status.h"

namespace slipstream::store {

struct WorkerPoolOptions {
    std::size_t threads = 2;        // at least 1
    std::size_t max_queue = 1024;   // jobs waiting for a thread; submit() refuses beyond it
    std::string name = "ss-store";  // thread names: "<name>-0", "<name>-1", ... (15 characters at most kept)
};

/// Runs jobs on its threads in FIFO order; a job learns the index of the thread running it (0..threads-1), so
/// per-thread state (one SQLite connection per worker) needs no lock. Jobs must not throw. I/O threads submit
/// and never wait: results go back to their loop with EventLoop::post.
class WorkerPool {
  public:
    using Job = std::function<void(std::size_t worker)>;

    /// Starts the threads (control plane: throws std::system_error when a thread cannot start).
    explicit WorkerPool(WorkerPoolOptions options = {});
    /// Runs the jobs still queued, then joins the threads.
    ~WorkerPool();
    WorkerPool(const WorkerPool&) = delete;
    WorkerPool& operator=(const WorkerPool&) = delete;

    /// Queues `job`. Any thread. Errors: resource_exhausted when max_queue jobs wait already.
    [[nodiscard]] base::Status submit(Job job);
    std::size_t threads() const { return threads_.size(); }
    /// Jobs waiting for a thread (not those running). Any thread.
    std::size_t queued() const;

  private:
    void run(std::size_t index);

    WorkerPoolOptions options_;
    mutable std::mutex mutex_;
    std::condition_variable ready_;
    std::deque<Job> queue_;  // guarded by mutex_
    bool stopping_ = false;  // guarded by mutex_
    std::vector<std::thread> threads_;
};

}  // namespace slipstream::store
