// PrefixCache: a radix tree over full KV blocks, so requests that share a prompt prefix share its K/V.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <unordered_map>
#include <vector>

#include "agent/infer/block_pool.h"

namespace slipstream::agent::infer {

struct PrefixCacheStats {
    uint64_t queries = 0;         // match() calls
    uint64_t hits = 0;            // match() calls that found at least one block
    uint64_t queried_tokens = 0;  // tokens passed to match()
    uint64_t hit_tokens = 0;      // tokens covered by the blocks match() returned
    int64_t cached_blocks = 0;    // blocks the tree indexes now (used or cached-free)
};

/// Each node is one full block: its key is the block's block_size tokens, the path from the root is the prefix
/// before it, so a node's K/V depends only on the tokens along its path. Only full blocks are indexed; a
/// partially filled block is never shared. Nodes live as long as their block: when the pool evicts a
/// cached-free block (least recently released first, which puts leaves before their parents, as a sequence
/// releases its table from the end) its node goes, and its descendants are unindexed. Single-threaded, like the
/// pool.
class PrefixCache {
  public:
    /// The pool must outlive the cache, which holds the pool's evict callback while it lives.
    PrefixCache(BlockPool& pool, int32_t block_size);
    ~PrefixCache();
    PrefixCache(const PrefixCache&) = delete;
    PrefixCache& operator=(const PrefixCache&) = delete;

    /// The blocks of the longest cached prefix of `tokens` in whole blocks, never covering the last token (so the
    /// caller always computes at least one position and gets logits). The caller retains the blocks it keeps.
    std::vector<int32_t> match(std::span<const int32_t> tokens);

    /// Indexes blocks[i] as holding tokens [i * block_size, (i + 1) * block_size) for each full block of `tokens`
    /// that `blocks` covers. A prefix already cached under other blocks keeps them (this sequence's copy stays
    /// unindexed and is freed on release). Returns how many blocks were newly indexed.
    int32_t insert(std::span<const int32_t> tokens, std::span<const int32_t> blocks);

    int32_t block_size() const { return block_size_; }
    PrefixCacheStats stats() const;

  private:
    struct Node {
        std::vector<int32_t> key;
        int32_t block = -1;
        uint64_t key_hash = 0;
        Node* parent = nullptr;
        std::unordered_map<uint64_t, std::unique_ptr<Node>> children;
    };

    Node* find_child(Node& node, std::span<const int32_t> key, uint64_t key_hash) const;
    void on_evict(int32_t block);
    void forget_subtree(Node& node);

    BlockPool& pool_;
    int32_t block_size_;
    Node root_;
    std::vector<Node*> node_of_block_;
    PrefixCacheStats stats_;
};

}  // namespace slipstream::agent::infer
