// Counter (uint64) and DoubleCounter: monotonic totals, sharded per thread so increments never contend.
#pragma once

#include <atomic>
#include <bit>
#include <cstdint>
#include <string>
#include <string_view>
#include <type_traits>

#include "metrics/slot_arena.h"
#include "metrics/text_format.h"
#include "metrics/thread_shard.h"

namespace slipstream::metrics {

/// A monotonic total. inc() is lock-free, allocation-free and safe from any number of threads at once:
/// each thread adds to its own shard's cell (a relaxed atomic add on a cache line no other shard
/// writes), and value()/render() sum the shards at scrape time. Made by a Registry or a Family, which
/// owns it; the reference stays valid for the Registry's lifetime.
template <typename T>
class BasicCounter {
    static_assert(std::is_same_v<T, std::uint64_t> || std::is_same_v<T, double>);

  public:
    static constexpr std::string_view kTypeName = "counter";
    struct Options {};

    BasicCounter(detail::SlotArena& arena, const Options& /*options*/)
        : first_(arena.allocate(1)), mask_(arena.shard_mask()) {}
    BasicCounter(const BasicCounter&) = delete;
    BasicCounter& operator=(const BasicCounter&) = delete;

    void inc() { inc(T{1}); }

    /// Adds n. For DoubleCounter a negative or NaN n is ignored (a counter never goes down).
    // uint64: ~2.2-3.3 ns single thread and ~2.8-3.2 ns per inc with 2 threads on one counter; one shared
    // padded atomic costs the same alone but ~8 ns of CPU per inc with 2 threads (metrics_bench
    // BM_Burst*, g++ 12 / clang 14 -O2, 2-vCPU AMD EPYC VM). Sharding keeps the contended cost flat.
    void inc(T n) {
        detail::Slot& cell = first_[(detail::this_thread_shard() & mask_) * detail::kSlotsPerShard];
        if constexpr (std::is_same_v<T, std::uint64_t>) {
            cell.fetch_add(n, std::memory_order_relaxed);
        } else {
            if (!(n >= 0.0)) return;
            // Uncontended in the common case (one thread per shard), so the loop runs once.
            std::uint64_t old = cell.load(std::memory_order_relaxed);
            while (!cell.compare_exchange_weak(old, std::bit_cast<std::uint64_t>(std::bit_cast<double>(old) + n),
                                               std::memory_order_relaxed)) {
            }
        }
    }

    /// A uint64 counter's cell in the calling thread's shard, for a thread that updates the counter many times
    /// (an I/O thread's per-route cache): inc() is then one relaxed atomic add, with no shard lookup. Still
    /// correct from any thread (the add is atomic and value() sums every shard); cheapest on the thread that
    /// made it. Valid as long as the counter.
    class Local {
      public:
        Local() = default;
        void inc(std::uint64_t n = 1) const { cell_->fetch_add(n, std::memory_order_relaxed); }

      private:
        friend class BasicCounter;
        explicit Local(detail::Slot* cell) : cell_(cell) {}
        detail::Slot* cell_ = nullptr;
    };
    Local local() const requires std::is_same_v<T, std::uint64_t> {
        return Local(first_ + (detail::this_thread_shard() & mask_) * detail::kSlotsPerShard);
    }

    /// The total over all shards. Scrape-time cost: one load per shard.
    T value() const {
        if constexpr (std::is_same_v<T, std::uint64_t>) {
            return detail::sum_shards(first_, mask_ + 1);
        } else {
            double total = 0;
            for (std::uint32_t s = 0; s <= mask_; ++s) {
                total += std::bit_cast<double>(first_[s * detail::kSlotsPerShard].load(std::memory_order_relaxed));
            }
            return total;
        }
    }

    /// Appends `name{labels} value\n`.
    void render(std::string_view name, std::string_view labels, std::string& out) const {
        detail::append_sample_start(out, name, "", labels);
        if constexpr (std::is_same_v<T, std::uint64_t>) {
            detail::append_uint(out, value());
        } else {
            detail::append_double(out, value());
        }
        out += '\n';
    }

  private:
    detail::Slot* const first_;  // this counter's cell in shard 0; shard s is kSlotsPerShard * s further
    const std::uint32_t mask_;
};

using Counter = BasicCounter<std::uint64_t>;
using DoubleCounter = BasicCounter<double>;

}  // namespace slipstream::metrics
