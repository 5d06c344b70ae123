// BlockPool: the KV-cache blocks of a model, with reference counts, a free list and LRU reuse of cached blocks.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "base/result.h"

namespace slipstream::agent::infer {

/// Bookkeeping for `num_blocks` KV blocks (the memory itself belongs to the model). A block is in one of three
/// states: used (reference count > 0), free, or cached-free (count 0 but indexed by the prefix cache, so its
/// contents may be reused by a later request). allocate() takes a free block, else evicts the least recently
/// released cached-free block (telling the prefix cache through the evict callback). Single-threaded: the
/// scheduler's step thread owns it.
class BlockPool {
  public:
    explicit BlockPool(int32_t num_blocks);
    BlockPool(const BlockPool&) = delete;
    BlockPool& operator=(const BlockPool&) = delete;

    /// A block with reference count 1; resource_exhausted when no block is free or cached-free.
    base::Result<int32_t> allocate();
    /// Adds a reference. A cached-free block becomes used again (it leaves the LRU list).
    void retain(int32_t block);
    /// Drops a reference. At zero the block becomes cached-free (most recently used end) if the prefix cache
    /// indexes it, else free.
    void release(int32_t block);

    /// Called by the prefix cache when it starts or stops indexing a block. Uncaching a block with count 0 frees it.
    void set_cached(int32_t block, bool cached);
    bool is_cached(int32_t block) const { return cached_[static_cast<size_t>(block)] != 0; }
    int32_t ref_count(int32_t block) const { return refs_[static_cast<size_t>(block)]; }

    /// Called with a cached-free block that allocate() is about to hand out; the block is already uncached.
    /// The prefix cache drops its node here.
    void set_evict_callback(std::function<void(int32_t)> on_evict) { on_evict_ = std::move(on_evict); }

    int32_t num_blocks() const { return static_cast<int32_t>(refs_.size()); }
    int32_t num_free() const { return static_cast<int32_t>(free_.size()); }
    int32_t num_cached_free() const { return num_cached_free_; }
    /// Blocks allocate() can hand out: free plus cached-free.
    int32_t num_available() const { return num_free() + num_cached_free_; }
    int32_t num_used() const { return num_blocks() - num_available(); }

  private:
    void lru_push_back(int32_t block);
    void lru_remove(int32_t block);

    std::vector<int32_t> refs_;
    std::vector<uint8_t> cached_;
    std::vector<int32_t> free_;  // a stack: the lowest ids are handed out first
    // Doubly linked LRU list of cached-free blocks through prev_/next_; index num_blocks is the sentinel.
    std::vector<int32_t> prev_;
    std::vector<int32_t> next_;
    int32_t num_cached_free_ = 0;
    std::function<void(int32_t)> on_evict_;
};

}  // namespace slipstream::agent::infer
