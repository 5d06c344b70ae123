// IoThreadPool: starting, naming, stopping and joining the I/O threads.
#include "net/io_threads.h"

#include <pthread.h>

#include <stdexcept>
#include <string>

#include "base/assert.h"

namespace slipstream::net {

IoThreadPool::IoThreadPool(std::size_t count, const base::Clock& clock, EventLoopOptions options) {
    if (count == 0) throw std::invalid_argument("IoThreadPool: count must be at least 1");
    loops_.reserve(count);
    for (std::size_t i = 0; i < count; ++i)
        loops_.push_back(std::make_unique<EventLoop>(clock, options));
}

IoThreadPool::~IoThreadPool() {
    stop();
}

void IoThreadPool::start(StartHook on_start) {
    SLIPSTREAM_CHECK(threads_.empty());
    threads_.reserve(loops_.size());
    for (std::size_t i = 0; i < loops_.size(); ++i) {
        EventLoop* loop = loops_[i].get();
        threads_.emplace_back([loop, i, on_start] {
            // Linux thread names hold 15 characters: "ss-io-" leaves room for 9 digits.
            const std::string name = "ss-io-" + std::to_string(i);
            ::pthread_setname_np(::pthread_self(), name.c_str());
            loop->attach_to_current_thread();
            if (on_start) on_start(*loop, i);
            loop->run();
        });
    }
}

void IoThreadPool::stop() {
    for (auto& loop : loops_)
        loop->stop();
    for (auto& t : threads_) {
        if (t.joinable()) t.join();
    }
    threads_.clear();
}

}  // namespace slipstream::net
