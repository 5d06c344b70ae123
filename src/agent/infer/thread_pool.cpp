// ThreadPool: workers spin briefly, then sleep, between parallel_for calls; the caller takes a share of each.
#include "agent/infer/thread_pool.h"

#include <sched.h>

#include <chrono>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

namespace slipstream::agent::infer {

namespace {

// A decode step calls parallel_for ~10 times per layer with little serial work in between, so a worker that just
// finished waits this long on a spinning load before it sleeps; waking a sleeping thread costs tens of µs.
constexpr auto kSpin = std::chrono::microseconds(200);
// How long the caller spins for the last workers before sleeping on done_cv_.
constexpr auto kCallerSpin = std::chrono::microseconds(2000);

inline void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
    _mm_pause();
#elif defined(__aarch64__)
    asm volatile("yield");
#endif
}

int default_threads() {
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof(set), &set) == 0) {
        int n = CPU_COUNT(&set);
        if (n > 0) return n;
    }
    unsigned n = std::thread::hardware_concurrency();
    return n > 0 ? static_cast<int>(n) : 1;
}

// Spins until pred() holds or `limit` passes; true if pred() held. After the first few hundred pauses it yields
// between checks, so that with more runnable threads than cores (another process, or a pool larger than the
// machine) the thread we wait for gets the core instead of us.
template <typename Pred>
bool spin_until(Pred pred, std::chrono::microseconds limit) {
    for (int i = 0; i < 256; ++i) {
        if (pred()) return true;
        cpu_relax();
    }
    const auto deadline = std::chrono::steady_clock::now() + limit;
    for (;;) {
        for (int i = 0; i < 16; ++i) {
            if (pred()) return true;
            cpu_relax();
        }
        sched_yield();
        if (pred()) return true;
        if (std::chrono::steady_clock::now() >= deadline) return false;
    }
}

}  // namespace

ThreadPool::ThreadPool(int threads) {
    if (threads <= 0) threads = default_threads();
    workers_.reserve(static_cast<std::size_t>(threads - 1));
    for (int i = 1; i < threads; ++i)
        workers_.emplace_back([this, i] { worker_main(i); });
}

ThreadPool::~ThreadPool() {
    stopping_.store(true);
    { std::lock_guard<std::mutex> lock(mu_); }
    start_cv_.notify_all();
    for (auto& t : workers_)
        t.join();
}

void ThreadPool::run(int64_t n, Trampoline fn, void* ctx) {
    if (n <= 0) return;
    if (workers_.empty() || n == 1) {
        fn(ctx, 0, n);
        return;
    }
    fn_ = fn;
    ctx_ = ctx;
    n_ = n;
    // Several ranges per thread so a thread that runs late (another process on its core) is balanced out.
    const int64_t per = n / (static_cast<int64_t>(size()) * 4);
    grain_ = per > 1 ? per : 1;
    next_.store(0, std::memory_order_relaxed);
    pending_.store(static_cast<int>(workers_.size()), std::memory_order_relaxed);
    // seq_cst pairs with the sleepers_ increment in worker_main: either the worker sees the new generation
    // before it waits, or we see it sleeping and notify under the mutex.
    generation_.fetch_add(1);
    if (sleepers_.load() > 0) {
        { std::lock_guard<std::mutex> lock(mu_); }
        start_cv_.notify_all();
    }
    work();
    auto done = [this] { return pending_.load(std::memory_order_acquire) == 0; };
    if (spin_until(done, kCallerSpin)) return;
    std::unique_lock<std::mutex> lock(mu_);
    caller_sleeping_.store(true);
    done_cv_.wait(lock, done);
    caller_sleeping_.store(false);
}

void ThreadPool::work() {
    const int64_t n = n_;
    const int64_t grain = grain_;
    for (;;) {
        const int64_t b = next_.fetch_add(grain, std::memory_order_relaxed);
        if (b >= n) return;
        const int64_t e = b + grain < n ? b + grain : n;
        fn_(ctx_, b, e);
    }
}

void ThreadPool::worker_main(int /*index*/) {
    uint64_t seen = 0;
    for (;;) {
        auto started = [&] { return generation_.load(std::memory_order_acquire) != seen || stopping_.load(); };
        if (!spin_until(started, kSpin)) {
            std::unique_lock<std::mutex> lock(mu_);
            sleepers_.fetch_add(1);
            start_cv_.wait(lock, started);
            sleepers_.fetch_sub(1);
        }
        if (stopping_.load()) return;
        seen = generation_.load(std::memory_order_acquire);
        work();
        // seq_cst pairs with caller_sleeping_ in run(): either the caller sees pending_ == 0 before it waits, or
        // we see it sleeping and notify under the mutex.
        if (pending_.fetch_sub(1) == 1 && caller_sleeping_.load()) {
            { std::lock_guard<std::mutex> lock(mu_); }
            done_cv_.notify_one();
        }
    }
}

}  // namespace slipstream::agent::infer
