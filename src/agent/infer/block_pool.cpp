// BlockPool: free list, reference counts and the LRU list of cached-free blocks.
#include "agent/infer/block_pool.h"

#include <string>

#include "base/assert.h"

namespace slipstream::agent::infer {

BlockPool::BlockPool(int32_t num_blocks)
    : refs_(static_cast<size_t>(num_blocks), 0),
      cached_(static_cast<size_t>(num_blocks), 0),
      prev_(static_cast<size_t>(num_blocks) + 1, num_blocks),
      next_(static_cast<size_t>(num_blocks) + 1, num_blocks) {
    free_.reserve(static_cast<size_t>(num_blocks));
    for (int32_t b = num_blocks - 1; b >= 0; --b)
        free_.push_back(b);
}

base::Result<int32_t> BlockPool::allocate() {
    int32_t block;
    if (!free_.empty()) {
        block = free_.back();
        free_.pop_back();
    } else if (num_cached_free_ > 0) {
        const int32_t sentinel = num_blocks();
        block = next_[static_cast<size_t>(sentinel)];
        lru_remove(block);
        cached_[static_cast<size_t>(block)] = 0;
        if (on_evict_) on_evict_(block);
    } else {
        return base::Status::resource_exhausted("all " + std::to_string(num_blocks()) + " KV blocks are in use");
    }
    refs_[static_cast<size_t>(block)] = 1;
    return block;
}

void BlockPool::retain(int32_t block) {
    int32_t& refs = refs_[static_cast<size_t>(block)];
    if (refs == 0) {
        SLIPSTREAM_BUG(cached_[static_cast<size_t>(block)] != 0);  // retaining a free block is a use after free
        lru_remove(block);
    }
    ++refs;
}

void BlockPool::release(int32_t block) {
    int32_t& refs = refs_[static_cast<size_t>(block)];
    SLIPSTREAM_BUG(refs > 0);
    if (refs <= 0) return;
    if (--refs > 0) return;
    if (cached_[static_cast<size_t>(block)] != 0) {
        lru_push_back(block);
    } else {
        free_.push_back(block);
    }
}

void BlockPool::set_cached(int32_t block, bool cached) {
    uint8_t& flag = cached_[static_cast<size_t>(block)];
    if ((flag != 0) == cached) return;
    if (refs_[static_cast<size_t>(block)] > 0) {
        flag = cached ? 1 : 0;
        return;
    }
    // Count 0: only uncaching is possible (the cache indexes blocks that hold data, so not free ones); the block
    // moves from the LRU list to the free list.
    SLIPSTREAM_BUG(!cached);
    if (cached) return;
    flag = 0;
    lru_remove(block);
    free_.push_back(block);
}

void BlockPool::lru_push_back(int32_t block) {
    const int32_t sentinel = num_blocks();
    const int32_t last = prev_[static_cast<size_t>(sentinel)];
    prev_[static_cast<size_t>(block)] = last;
    next_[static_cast<size_t>(block)] = sentinel;
    next_[static_cast<size_t>(last)] = block;
    prev_[static_cast<size_t>(sentinel)] = block;
    ++num_cached_free_;
}

void BlockPool::lru_remove(int32_t block) {
    const int32_t p = prev_[static_cast<size_t>(block)];
    const int32_t n = next_[static_cast<size_t>(block)];
    next_[static_cast<size_t>(p)] = n;
    prev_[static_cast<size_t>(n)] = p;
    --num_cached_free_;
}

}  // namespace slipstream::agent::infer
