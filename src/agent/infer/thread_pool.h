// ThreadPool: a fixed set of threads that run one parallel_for at a time for the model's kernels.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <thread>
#include <type_traits>
#include <vector>

namespace slipstream::agent::infer {

/// parallel_for(n, fn) splits [0, n) into contiguous ranges and calls fn(begin, end) on the pool's threads and
/// the caller's, returning when every range is done. One caller at a time (the scheduler's step thread).
/// threads = 0 means one per online CPU; threads = 1 runs everything on the caller.
class ThreadPool {
  public:
    explicit ThreadPool(int threads = 0);
    ~ThreadPool();
    ThreadPool(const ThreadPool&) = delete;
    ThreadPool& operator=(const ThreadPool&) = delete;

    /// Workers including the caller.
    int size() const { return static_cast<int>(workers_.size()) + 1; }

    template <typename Fn>
    void parallel_for(int64_t n, Fn&& fn) {
        using F = std::remove_reference_t<Fn>;
        run(
            n, [](void* ctx, int64_t b, int64_t e) { (*static_cast<F*>(ctx))(b, e); },
            const_cast<void*>(static_cast<const void*>(&fn)));
    }

  private:
    using Trampoline = void (*)(void*, int64_t, int64_t);
    void run(int64_t n, Trampoline fn, void* ctx);
    void worker_main(int index);
    void work();

    std::vector<std::thread> workers_;
    std::mutex mu_;
    std::condition_variable start_cv_;
    std::condition_variable done_cv_;
    // Workers spin on generation_ for a short while before sleeping on start_cv_; sleepers_ tells run() whether
    // it must take mu_ to wake anyone, and caller_sleeping_ tells the last worker whether to signal done_cv_.
    alignas(64) std::atomic<uint64_t> generation_{0};
    std::atomic<int> sleepers_{0};
    std::atomic<bool> stopping_{false};
    std::atomic<bool> caller_sleeping_{false};
    Trampoline fn_ = nullptr;
    void* ctx_ = nullptr;
    int64_t n_ = 0;
    int64_t grain_ = 1;
    alignas(64) std::atomic<int64_t> next_{0};
    alignas(64) std::atomic<int> pending_{0};
};

}  // namespace slipstream::agent::infer
