// WorkerPool: threads, queue and shutdown.
#include "store/worker_pool.h"

#include <pthread.h>

namespace slipstream::store {

WorkerPool::WorkerPool(WorkerPoolOptions options) : options_(std::move(options)) {
    std::size_t n = options_.threads == 0 ? 1 : options_.threads;
    threads_.reserve(n);
    for (std::size_t i = 0; i < n; ++i) {
        threads_.emplace_back([this, i] { run(i); });
        std::string name = (options_.name + "-" + std::to_string(i)).substr(0, 15);
        pthread_setname_np(threads_.back().native_handle(), name.c_str());
    }
}

WorkerPool::~WorkerPool() {
    {
        std::lock_guard<std::mutex> lock(mutex_);
        stopping_ = true;
    }
    ready_.notify_all();
    for (auto& t : threads_)
        t.join();
}

base::Status WorkerPool::submit(Job job) {
    {
        std::lock_guard<std::mutex> lock(mutex_);
        if (queue_.size() >= options_.max_queue) {
            return base::Status::resource_exhausted("store worker queue is full (" +
                                                    std::to_string(options_.max_queue) + " jobs)");
        }
        queue_.push_back(std::move(job));
    }
    ready_.notify_one();
    return base::Status::ok();
}

std::size_t WorkerPool::queued() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return queue_.size();
}

void WorkerPool::run(std::size_t index) {
    for (;;) {
        Job job;
        {
            std::unique_lock<std::mutex> lock(mutex_);
            ready_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
            if (queue_.empty()) return;  // stopping, and every queued job ran
            job = std::move(queue_.front());
            queue_.pop_front();
        }
        job(index);
    }
}

}  // namespace slipstream::store
