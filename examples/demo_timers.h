// DemoTimers: the demo's delayed and background work on one thread with a bounded queue, so no load can make
// the demo start threads (or queue work) without bound.
#pragma once

#include <pthread.h>

#include <chrono>
#include <condition_variable>
#include <csignal>
#include <cstddef>
#include <functional>
#include <mutex>
#include <queue>
#include <thread>
#include <vector>

namespace demo {

/// Runs each task at its deadline on the one thread it owns. Tasks must be short (they never sleep: a task
/// that wants to go on later schedules another). At most `max_pending` tasks wait; after() refuses past that.
/// Pending tasks are dropped (destroyed, not run) when the object is destroyed. after() is thread-safe.
class DemoTimers {
  public:
    using Clock = std::chrono::steady_clock;
    using Task = std::function<void()>;

    explicit DemoTimers(std::size_t max_pending = 10'000) : max_pending_(max_pending) {
        // The thread starts with every signal blocked: SIGTERM and SIGINT are the server's (its drain), and a
        // thread made before serve_main would otherwise take them with their default action.
        sigset_t all;
        sigset_t old;
        sigfillset(&all);
        pthread_sigmask(SIG_BLOCK, &all, &old);
        thread_ = std::thread([this] { run(); });
        pthread_sigmask(SIG_SETMASK, &old, nullptr);
    }
    ~DemoTimers() {
        {
            std::lock_guard lock(mutex_);
            stop_ = true;
        }
        wake_.notify_all();
        thread_.join();
    }
    DemoTimers(const DemoTimers&) = delete;
    DemoTimers& operator=(const DemoTimers&) = delete;

    /// Runs `task` on the timer thread in `ms` milliseconds; false (the task dropped) when the queue is full.
    bool after(long ms, Task task) {
        {
            std::lock_guard lock(mutex_);
            if (stop_ || queue_.size() >= max_pending_) return false;
            queue_.push({Clock::now() + std::chrono::milliseconds(ms), next_seq_++, std::move(task)});
        }
        wake_.notify_one();
        return true;
    }

  private:
    struct Entry {
        Clock::time_point at;
        unsigned long long seq;  // equal deadlines run in the order they were scheduled
        Task task;
        bool operator>(const Entry& o) const { return at != o.at ? at > o.at : seq > o.seq; }
    };

    void run() {
        std::unique_lock lock(mutex_);
        while (!stop_) {
            if (queue_.empty()) {
                wake_.wait(lock);
                continue;
            }
            const auto due = queue_.top().at;  // a copy: another thread may push (and move the top) while we wait
            if (Clock::now() < due) {
                wake_.wait_until(lock, due);
                continue;
            }
            Task task = std::move(const_cast<Entry&>(queue_.top()).task);  // popped right away
            queue_.pop();
            lock.unlock();
            task();
            task = nullptr;  // what it captured (a Responder) goes before the lock is taken again
            lock.lock();
        }
    }

    std::size_t max_pending_;
    std::mutex mutex_;
    std::condition_variable wake_;
    std::priority_queue<Entry, std::vector<Entry>, std::greater<>> queue_;
    unsigned long long next_seq_ = 0;
    bool stop_ = false;
    std::thread thread_;
};

}  // namespace demo
