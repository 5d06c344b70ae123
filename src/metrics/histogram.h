// Histogram: counts observations (integer nanoseconds or bytes) into fixed buckets, sharded per thread.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "metrics/buckets.h"
#include "metrics/slot_arena.h"
#include "metrics/thread_shard.h"

namespace slipstream::metrics {

/// A histogram's totals at one moment. counts are per bucket, not cumulative; the last is +Inf.
struct HistogramSnapshot {
    std::vector<std::uint64_t> counts;
    std::uint64_t sum = 0;    // in observe() units
    std::uint64_t count = 0;  // total of counts
};

/// Observations in the integer unit of its Buckets (nanoseconds, bytes). observe() is lock-free,
/// allocation-free and safe from any number of threads: a table lookup by bit width, then two relaxed
/// atomic adds in the calling thread's shard. `_count` is derived from the buckets at scrape time, so it
/// always equals the +Inf bucket. Made by a Registry or a Family, which owns it and its Buckets.
class Histogram {
  public:
    static constexpr std::string_view kTypeName = "histogram";
    using Options = Buckets;

    /// `buckets` must outlive the histogram (the family holds it).
    Histogram(detail::SlotArena& arena, const Buckets& buckets);
    Histogram(const Histogram&) = delete;
    Histogram& operator=(const Histogram&) = delete;

    /// Counts one observation of `value` (ns for latency buckets, bytes for size buckets).
    // ~6 ns single thread, ~7-7.7 ns per observe with 2 threads on one histogram (latency buckets,
    // values spread over all buckets); a binary search instead of the width table cost 10-18 ns.
    // See metrics_bench BM_BurstHistogramObserve.
    void observe(std::uint64_t value) {
        detail::Slot* shard = first_ + (detail::this_thread_shard() & mask_) * detail::kSlotsPerShard;
        shard[bucket_index(value)].fetch_add(1, std::memory_order_relaxed);
        shard[bounds_count_ + 1].fetch_add(value, std::memory_order_relaxed);
    }

    /// The histogram's cells in the calling thread's shard, for a thread that observes many times (an I/O
    /// thread's per-route cache): observe() then skips the shard lookup. Still correct from any thread
    /// (atomic adds; scrapes sum every shard); cheapest on the thread that made it. Valid as long as the
    /// histogram.
    class Local {
      public:
        Local() = default;
        void observe(std::uint64_t value) const {
            shard_[histogram_->bucket_index(value)].fetch_add(1, std::memory_order_relaxed);
            shard_[histogram_->bounds_count_ + 1].fetch_add(value, std::memory_order_relaxed);
        }

      private:
        friend class Histogram;
        Local(const Histogram* h, detail::Slot* shard) : histogram_(h), shard_(shard) {}
        const Histogram* histogram_ = nullptr;
        detail::Slot* shard_ = nullptr;
    };
    Local local() const { return Local(this, first_ + (detail::this_thread_shard() & mask_) * detail::kSlotsPerShard); }

    /// Index of the first bound >= value, or bounds().size() for the +Inf bucket. O(1) for bucket sets
    /// with at most one bound per power of two (the default sets): a bit-width table, then one compare.
    std::size_t bucket_index(std::uint64_t value) const {
        const int width = std::bit_width(value);
        std::size_t i = by_width_[width];
        const std::size_t end = by_width_[width + 1];
        while (i < end && bounds_[i] < value)
            ++i;
        return i;
    }

    const Buckets& buckets() const { return buckets_; }

    /// Sums the shards (scrape time).
    HistogramSnapshot snapshot() const;

    /// Appends the `_bucket` lines (cumulative, with le), `_sum` and `_count`.
    void render(std::string_view name, std::string_view labels, std::string& out) const;

  private:
    const Buckets& buckets_;
    const std::uint64_t* const bounds_;
    const std::uint16_t* const by_width_;
    const std::uint32_t bounds_count_;
    const std::uint32_t mask_;
    // Per shard: bounds_count_ + 1 bucket cells (the last is +Inf), then the sum.
    detail::Slot* const first_;
};

}  // namespace slipstream::metrics
