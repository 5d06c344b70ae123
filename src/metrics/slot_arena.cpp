// Chunked, cache-line-aligned allocation of sharded metric cells.
#include "metrics/slot_arena.h"

#include <new>
#include <stdexcept>
#include <string>

namespace slipstream::metrics::detail {
namespace {
constexpr std::align_val_t kAlign{64};
}  // namespace

SlotArena::SlotArena(std::uint32_t shards) : shards_(shards) {
    if (shards == 0 || shards > kMaxShards || (shards & (shards - 1)) != 0) {
        throw std::invalid_argument("metrics: shard count must be a power of two in [1, " + std::to_string(kMaxShards) +
                                    "], got " + std::to_string(shards));
    }
}

void SlotArena::Free::operator()(Slot* p) const {
    // Slot is trivially destructible; only the storage goes back.
    ::operator delete[](static_cast<void*>(p), kAlign);
}

Slot* SlotArena::allocate(std::size_t count) {
    if (count == 0 || count > kSlotsPerShard) {
        throw std::invalid_argument("metrics: a metric needs 1.." + std::to_string(kSlotsPerShard) +
                                    " cells, asked for " + std::to_string(count));
    }
    std::lock_guard<std::mutex> lock(mu_);
    if (used_ + count > kSlotsPerShard) {
        const std::size_t n = static_cast<std::size_t>(shards_) * kSlotsPerShard;
        void* raw = ::operator new[](n * sizeof(Slot), kAlign);
        Slot* cells = static_cast<Slot*>(raw);
        for (std::size_t i = 0; i < n; ++i)
            new (cells + i) Slot(0);
        chunks_.emplace_back(cells);
        used_ = 0;
    }
    Slot* first = chunks_.back().get() + used_;
    used_ += count;
    return first;
}

}  // namespace slipstream::metrics::detail
