// PrefixCache: match, insert and eviction of the radix tree of KV blocks.
#include "agent/infer/prefix_cache.h"

#include <algorithm>

namespace slipstream::agent::infer {

namespace {

uint64_t hash_tokens(std::span<const int32_t> tokens) {
    uint64_t h = 0x9E3779B97F4A7C15ull ^ tokens.size();
    for (int32_t t : tokens) {
        h ^= static_cast<uint32_t>(t);
        h *= 0xFF51AFD7ED558CCDull;
        h ^= h >> 32;
    }
    return h;
}

}  // namespace

PrefixCache::PrefixCache(BlockPool& pool, int32_t block_size)
    : pool_(pool), block_size_(block_size), node_of_block_(static_cast<size_t>(pool.num_blocks()), nullptr) {
    pool_.set_evict_callback([this](int32_t block) { on_evict(block); });
}

PrefixCache::~PrefixCache() {
    pool_.set_evict_callback(nullptr);
}

PrefixCache::Node* PrefixCache::find_child(Node& node, std::span<const int32_t> key, uint64_t key_hash) const {
    auto it = node.children.find(key_hash);
    if (it == node.children.end()) return nullptr;
    Node* child = it->second.get();
    // A 64-bit hash collision between different blocks reads as a miss.
    if (!std::equal(key.begin(), key.end(), child->key.begin(), child->key.end())) return nullptr;
    return child;
}

std::vector<int32_t> PrefixCache::match(std::span<const int32_t> tokens) {
    std::vector<int32_t> blocks;
    ++stats_.queries;
    stats_.queried_tokens += tokens.size();
    if (tokens.empty()) return blocks;
    const size_t bs = static_cast<size_t>(block_size_);
    const size_t full = (tokens.size() - 1) / bs;  // never the block holding the last token
    Node* node = &root_;
    for (size_t i = 0; i < full; ++i) {
        auto key = tokens.subspan(i * bs, bs);
        node = find_child(*node, key, hash_tokens(key));
        if (node == nullptr) break;
        blocks.push_back(node->block);
    }
    if (!blocks.empty()) {
        ++stats_.hits;
        stats_.hit_tokens += blocks.size() * bs;
    }
    return blocks;
}

int32_t PrefixCache::insert(std::span<const int32_t> tokens, std::span<const int32_t> blocks) {
    const size_t bs = static_cast<size_t>(block_size_);
    const size_t full = std::min(tokens.size() / bs, blocks.size());
    int32_t added = 0;
    Node* node = &root_;
    for (size_t i = 0; i < full; ++i) {
        auto key = tokens.subspan(i * bs, bs);
        const uint64_t h = hash_tokens(key);
        if (Node* child = find_child(*node, key, h)) {
            node = child;
            continue;
        }
        const int32_t block = blocks[i];
        // Stop at a hash collision (the slot is taken by other tokens) or a block the tree already holds elsewhere.
        if (node->children.contains(h) || node_of_block_[static_cast<size_t>(block)] != nullptr) break;
        auto child = std::make_unique<Node>();
        child->key.assign(key.begin(), key.end());
        child->block = block;
        child->key_hash = h;
        child->parent = node;
        node_of_block_[static_cast<size_t>(block)] = child.get();
        pool_.set_cached(block, true);
        node = node->children.emplace(h, std::move(child)).first->second.get();
        ++stats_.cached_blocks;
        ++added;
    }
    return added;
}

void PrefixCache::on_evict(int32_t block) {
    Node* node = node_of_block_[static_cast<size_t>(block)];
    if (node == nullptr) return;
    node_of_block_[static_cast<size_t>(block)] = nullptr;
    --stats_.cached_blocks;
    // Descendants cannot be matched without this node: unused ones go back to the free list, used ones (held by a
    // sequence that computed the same prefix into blocks of its own) stay with their holder, unindexed.
    forget_subtree(*node);
    Node* parent = node->parent;
    parent->children.erase(node->key_hash);
}

void PrefixCache::forget_subtree(Node& node) {
    for (auto& [hash, child] : node.children) {
        forget_subtree(*child);
        node_of_block_[static_cast<size_t>(child->block)] = nullptr;
        --stats_.cached_blocks;
        pool_.set_cached(child->block, false);
    }
    node.children.clear();
}

PrefixCacheStats PrefixCache::stats() const {
    return stats_;
}

}  // namespace slipstream::agent::infer
