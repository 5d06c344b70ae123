// Sharded storage for counter and histogram cells: one 4 KiB region per shard, same offset in each.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

namespace slipstream::metrics::detail {

/// Cells per shard region (4 KiB). A metric's cell for shard s is `first + s * kSlotsPerShard`.
inline constexpr std::size_t kSlotsPerShard = 512;

using Slot = std::atomic<std::uint64_t>;

/// Hands out runs of zeroed cells, replicated once per shard, like per-CPU variables in a kernel.
/// Cells of different shards never share a cache line, so threads on different shards never
/// contend; cells of one shard are packed, so a metric costs 8 bytes per shard, not a cache line.
/// Memory lives as long as the arena (the Registry). allocate() is thread-safe.
class SlotArena {
  public:
    /// `shards` must be a power of two in [1, kMaxShards]; throws std::invalid_argument otherwise.
    explicit SlotArena(std::uint32_t shards);
    SlotArena(const SlotArena&) = delete;
    SlotArena& operator=(const SlotArena&) = delete;

    static constexpr std::uint32_t kMaxShards = 1024;

    /// Returns the shard-0 cell of `count` consecutive cells (count in [1, kSlotsPerShard]).
    Slot* allocate(std::size_t count);

    std::uint32_t shards() const { return shards_; }
    std::uint32_t shard_mask() const { return shards_ - 1; }

  private:
    struct Free {
        void operator()(Slot* p) const;
    };
    using Chunk = std::unique_ptr<Slot[], Free>;

    const std::uint32_t shards_;
    std::mutex mu_;
    std::vector<Chunk> chunks_;
    std::size_t used_ = kSlotsPerShard;  // cells taken in the newest chunk's regions; full = needs a chunk
};

/// Sum of one cell over `shards` shards (scrape time; wraps like the cells themselves).
inline std::uint64_t sum_shards(const Slot* first, std::uint32_t shards) {
    std::uint64_t total = 0;
    for (std::uint32_t s = 0; s < shards; ++s)
        total += first[s * kSlotsPerShard].load(std::memory_order_relaxed);
    return total;
}

}  // namespace slipstream::metrics::detail
