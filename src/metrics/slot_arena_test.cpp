// SlotArena: zeroed, distinct, shard-strided cells; thread shard pinning.
#include "metrics/slot_arena.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <set>
#include <stdexcept>
#include <thread>

#include "metrics/thread_shard.h"

namespace slipstream::metrics::detail {
namespace {

TEST(SlotArenaTest, CellsAreZeroedDistinctAndAligned) {
    SlotArena arena(4);
    EXPECT_EQ(arena.shard_mask(), 3u);
    std::set<const Slot*> seen;
    for (std::size_t n : {1u, 19u, 512u, 3u, 500u, 13u}) {
        Slot* first = arena.allocate(n);
        for (std::uint32_t s = 0; s < 4; ++s) {
            for (std::size_t i = 0; i < n; ++i) {
                const Slot* cell = first + s * kSlotsPerShard + i;
                EXPECT_EQ(cell->load(), 0u);
                EXPECT_TRUE(seen.insert(cell).second);
            }
        }
        // A whole-region run cannot share a chunk, so it starts a fresh, cache-line-aligned one.
        if (n == kSlotsPerShard) {
            EXPECT_EQ(reinterpret_cast<std::uintptr_t>(first) % 64, 0u);
        }
    }
}

TEST(SlotArenaTest, RegionsStartOnCacheLines) {
    SlotArena arena(2);
    Slot* first = arena.allocate(kSlotsPerShard);
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(first) % 64, 0u);
    first[kSlotsPerShard].store(7);  // shard 1, cell 0
    EXPECT_EQ(sum_shards(first, 2), 7u);
}

TEST(SlotArenaTest, RejectsBadSizes) {
    SlotArena arena(1);
    EXPECT_THROW(arena.allocate(0), std::invalid_argument);
    EXPECT_THROW(arena.allocate(kSlotsPerShard + 1), std::invalid_argument);
    EXPECT_THROW(SlotArena(0), std::invalid_argument);
    EXPECT_THROW(SlotArena(6), std::invalid_argument);
}

TEST(ThreadShardTest, PinnedAndRoundRobin) {
    std::uint32_t pinned = 0, first = 0, again = 0;
    std::thread([&] {
        set_this_thread_shard(37);
        pinned = this_thread_shard();
    }).join();
    EXPECT_EQ(pinned, 37u | kShardAssigned);
    std::thread([&] {
        first = this_thread_shard();
        again = this_thread_shard();
    }).join();
    EXPECT_NE(first & kShardAssigned, 0u);
    EXPECT_EQ(again, first);  // assigned once, then stable
}

}  // namespace
}  // namespace slipstream::metrics::detail
