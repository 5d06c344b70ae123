// PrefixCache: matching whole blocks, never the last token's block, shared prefixes, eviction of leaves first.
#include "agent/infer/prefix_cache.h"

#include <gtest/gtest.h>

#include <numeric>
#include <vector>

namespace slipstream::agent::infer {
namespace {

constexpr int32_t kBs = 4;

std::vector<int32_t> iota_tokens(int32_t n, int32_t first = 100) {
    std::vector<int32_t> t(static_cast<size_t>(n));
    std::iota(t.begin(), t.end(), first);
    return t;
}

// Allocates a block table for `tokens` (whole blocks) and indexes it, as the scheduler does after computing them.
std::vector<int32_t> fill(BlockPool& pool, PrefixCache& cache, const std::vector<int32_t>& tokens) {
    std::vector<int32_t> table;
    for (size_t i = 0; i < (tokens.size() + kBs - 1) / kBs; ++i)
        table.push_back(*pool.allocate());
    (void)cache.insert(tokens, table);
    return table;
}

void release_all(BlockPool& pool, const std::vector<int32_t>& table) {
    for (auto it = table.rbegin(); it != table.rend(); ++it)
        pool.release(*it);
}

TEST(PrefixCache, EmptyCacheMisses) {
    BlockPool pool(8);
    PrefixCache cache(pool, kBs);
    EXPECT_TRUE(cache.match(iota_tokens(9)).empty());
    const PrefixCacheStats s = cache.stats();
    EXPECT_EQ(s.queries, 1u);
    EXPECT_EQ(s.hits, 0u);
    EXPECT_EQ(s.queried_tokens, 9u);
    EXPECT_EQ(s.hit_tokens, 0u);
}

TEST(PrefixCache, IndexesOnlyFullBlocksAndNeverReturnsTheLastTokensBlock) {
    BlockPool pool(8);
    PrefixCache cache(pool, kBs);
    const auto tokens = iota_tokens(10);  // blocks [0,4) [4,8) full, [8,10) partial
    const auto table = fill(pool, cache, tokens);
    ASSERT_EQ(table.size(), 3u);
    EXPECT_EQ(cache.stats().cached_blocks, 2);
    EXPECT_TRUE(pool.is_cached(table[0]));
    EXPECT_TRUE(pool.is_cached(table[1]));
    EXPECT_FALSE(pool.is_cached(table[2]));

    // 8 tokens: both blocks cached, but the second holds the last token, so only one comes back.
    EXPECT_EQ(cache.match(iota_tokens(8)), (std::vector<int32_t>{table[0]}));
    // 9 tokens: the last token is in the third block, so both full blocks are usable.
    EXPECT_EQ(cache.match(iota_tokens(9)), (std::vector<int32_t>{table[0], table[1]}));
    EXPECT_EQ(cache.match(iota_tokens(30)), (std::vector<int32_t>{table[0], table[1]}));
    // A difference inside the second block stops the match after the first.
    auto other = iota_tokens(12);
    other[6] = 7;
    EXPECT_EQ(cache.match(other), (std::vector<int32_t>{table[0]}));
    // A difference in the first block: nothing.
    other[0] = 7;
    EXPECT_TRUE(cache.match(other).empty());
    const PrefixCacheStats s = cache.stats();
    EXPECT_EQ(s.queries, 5u);
    EXPECT_EQ(s.hits, 4u);
    EXPECT_EQ(s.queried_tokens, 8u + 9u + 30u + 12u + 12u);
    EXPECT_EQ(s.hit_tokens, 4u + 8u + 8u + 4u);
}

TEST(PrefixCache, SharedPrefixBranchesAndDuplicateContentKeepsTheFirstBlock) {
    BlockPool pool(16);
    PrefixCache cache(pool, kBs);
    auto a = iota_tokens(8);
    auto b = iota_tokens(8);
    b[5] = 1;  // same first block, different second
    const auto ta = fill(pool, cache, a);
    const auto tb = fill(pool, cache, b);  // its first block duplicates a's: not indexed
    EXPECT_EQ(cache.stats().cached_blocks, 3);
    EXPECT_FALSE(pool.is_cached(tb[0]));
    EXPECT_TRUE(pool.is_cached(tb[1]));
    a.push_back(0);
    b.push_back(0);
    EXPECT_EQ(cache.match(a), (std::vector<int32_t>{ta[0], ta[1]}));
    EXPECT_EQ(cache.match(b), (std::vector<int32_t>{ta[0], tb[1]}));
}

TEST(PrefixCache, EvictsLeavesBeforeTheirPrefixes) {
    BlockPool pool(3);
    PrefixCache cache(pool, kBs);
    const auto tokens = iota_tokens(12);
    const auto table = fill(pool, cache, tokens);
    release_all(pool, table);  // last block first, as the scheduler releases
    EXPECT_EQ(pool.num_cached_free(), 3);
    EXPECT_EQ(pool.num_used(), 0);

    const int32_t taken = *pool.allocate();
    EXPECT_EQ(taken, table[2]);
    EXPECT_EQ(cache.stats().cached_blocks, 2);
    auto query = iota_tokens(13);
    EXPECT_EQ(cache.match(query), (std::vector<int32_t>{table[0], table[1]}));
    EXPECT_EQ(*pool.allocate(), table[1]);
    EXPECT_EQ(cache.match(query), (std::vector<int32_t>{table[0]}));
    EXPECT_EQ(*pool.allocate(), table[0]);
    EXPECT_TRUE(cache.match(query).empty());
    EXPECT_EQ(cache.stats().cached_blocks, 0);
}

TEST(PrefixCache, EvictingAPrefixDropsItsDescendants) {
    BlockPool pool(3);
    PrefixCache cache(pool, kBs);
    const auto table = fill(pool, cache, iota_tokens(12));
    // Released first block first: the root's child becomes the least recently used.
    for (int32_t b : table)
        pool.release(b);
    EXPECT_EQ(*pool.allocate(), table[0]);
    // Its descendants cannot be matched any more, so they went back to the free list.
    EXPECT_EQ(cache.stats().cached_blocks, 0);
    EXPECT_EQ(pool.num_free(), 2);
    EXPECT_EQ(pool.num_cached_free(), 0);
    EXPECT_TRUE(cache.match(iota_tokens(13)).empty());
}

TEST(PrefixCache, AHitRetainedByTheCallerIsNotEvicted) {
    BlockPool pool(2);
    PrefixCache cache(pool, kBs);
    const auto table = fill(pool, cache, iota_tokens(8));
    release_all(pool, table);
    const auto hit = cache.match(iota_tokens(5));
    ASSERT_EQ(hit, (std::vector<int32_t>{table[0]}));
    pool.retain(hit[0]);
    EXPECT_EQ(*pool.allocate(), table[1]);
    EXPECT_FALSE(pool.allocate().is_ok());
    EXPECT_EQ(cache.match(iota_tokens(5)), hit);
}

}  // namespace
}  // namespace slipstream::agent::infer
