// BlockPool: allocation order, exhaustion, reference counts, cached-free blocks and their LRU eviction.
#include "agent/infer/block_pool.h"

#include <gtest/gtest.h>

#include <vector>

namespace slipstream::agent::infer {
namespace {

TEST(BlockPool, HandsOutLowestIdsFirstAndFailsCleanlyWhenEmpty) {
    BlockPool pool(3);
    EXPECT_EQ(*pool.allocate(), 0);
    EXPECT_EQ(*pool.allocate(), 1);
    EXPECT_EQ(*pool.allocate(), 2);
    auto none = pool.allocate();
    ASSERT_FALSE(none.is_ok());
    EXPECT_TRUE(none.status().is_resource_exhausted());
    EXPECT_EQ(none.status().message(), "all 3 KV blocks are in use");
    EXPECT_EQ(pool.num_used(), 3);
    EXPECT_EQ(pool.num_available(), 0);
}

TEST(BlockPool, ReleaseAtZeroReturnsTheBlock) {
    BlockPool pool(2);
    const int32_t b = *pool.allocate();
    pool.retain(b);
    EXPECT_EQ(pool.ref_count(b), 2);
    pool.release(b);
    EXPECT_EQ(pool.ref_count(b), 1);
    EXPECT_EQ(pool.num_free(), 1);
    pool.release(b);
    EXPECT_EQ(pool.ref_count(b), 0);
    EXPECT_EQ(pool.num_free(), 2);
    EXPECT_EQ(*pool.allocate(), b);  // the stack hands the last freed block out again
}

TEST(BlockPool, CachedBlocksBecomeCachedFreeAndAreEvictedLeastRecentlyReleasedFirst) {
    BlockPool pool(3);
    std::vector<int32_t> evicted;
    pool.set_evict_callback([&](int32_t b) { evicted.push_back(b); });
    const int32_t a = *pool.allocate();
    const int32_t b = *pool.allocate();
    const int32_t c = *pool.allocate();
    pool.set_cached(a, true);
    pool.set_cached(b, true);
    pool.release(b);
    pool.release(a);
    pool.release(c);  // not cached: truly free
    EXPECT_EQ(pool.num_free(), 1);
    EXPECT_EQ(pool.num_cached_free(), 2);
    EXPECT_EQ(pool.num_used(), 0);

    EXPECT_EQ(*pool.allocate(), c);  // free blocks go before any eviction
    EXPECT_TRUE(evicted.empty());
    EXPECT_EQ(*pool.allocate(), b);  // released before a
    EXPECT_EQ(evicted, (std::vector<int32_t>{b}));
    EXPECT_FALSE(pool.is_cached(b));
    EXPECT_EQ(*pool.allocate(), a);
    EXPECT_EQ(evicted, (std::vector<int32_t>{b, a}));
    EXPECT_FALSE(pool.allocate().is_ok());
}

TEST(BlockPool, RetainingACachedFreeBlockTakesItOffTheLruList) {
    BlockPool pool(2);
    int evictions = 0;
    pool.set_evict_callback([&](int32_t) { ++evictions; });
    const int32_t a = *pool.allocate();
    const int32_t b = *pool.allocate();
    pool.set_cached(a, true);
    pool.release(a);
    EXPECT_EQ(pool.num_cached_free(), 1);
    pool.retain(a);  // a prefix-cache hit
    EXPECT_EQ(pool.num_cached_free(), 0);
    EXPECT_EQ(pool.ref_count(a), 1);
    EXPECT_FALSE(pool.allocate().is_ok());
    EXPECT_EQ(evictions, 0);
    pool.release(b);
    EXPECT_EQ(*pool.allocate(), b);
}

TEST(BlockPool, UncachingACachedFreeBlockFreesIt) {
    BlockPool pool(1);
    const int32_t a = *pool.allocate();
    pool.set_cached(a, true);
    pool.release(a);
    pool.set_cached(a, false);
    EXPECT_EQ(pool.num_free(), 1);
    EXPECT_EQ(pool.num_cached_free(), 0);
    EXPECT_EQ(*pool.allocate(), a);
}

}  // namespace
}  // namespace slipstream::agent::infer
