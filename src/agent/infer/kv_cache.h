// KvCache: the keys and values of every layer, in fixed-size blocks addressed through block tables.
#pragma once

#include <cstdint>
#include <vector>

namespace slipstream::agent::infer {

/// num_blocks blocks of block_size positions. For block b and layer l, keys and values are each
/// [block_size][n_kv_heads * head_dim] floats. Plain storage: which block belongs to whom is the scheduler's
/// bookkeeping (block_pool.h); the model only reads and writes through block tables.
class KvCache {
  public:
    KvCache(int64_t n_layers, int64_t kv_dim, int64_t block_size, int64_t num_blocks);

    int64_t block_size() const { return block_size_; }
    int64_t num_blocks() const { return num_blocks_; }
    int64_t kv_dim() const { return kv_dim_; }
    /// Bytes one block takes over all layers (keys and values).
    int64_t block_bytes() const { return block_floats() * static_cast<int64_t>(sizeof(float)); }

    float* keys(int32_t block, int64_t layer) { return data_.data() + offset(block, layer, 0); }
    float* values(int32_t block, int64_t layer) { return data_.data() + offset(block, layer, 1); }
    const float* keys(int32_t block, int64_t layer) const { return data_.data() + offset(block, layer, 0); }
    const float* values(int32_t block, int64_t layer) const { return data_.data() + offset(block, layer, 1); }

    void copy_block(int32_t src, int32_t dst);
    void save_block(int32_t block, std::vector<float>& out) const;
    void load_block(int32_t block, const std::vector<float>& in);

  private:
    int64_t block_floats() const { return n_layers_ * 2 * block_size_ * kv_dim_; }
    int64_t offset(int32_t block, int64_t layer, int kind) const {
        return block * block_floats() + (layer * 2 + kind) * block_size_ * kv_dim_;
    }

    int64_t n_layers_, kv_dim_, block_size_, num_blocks_;
    std::vector<float> data_;
};

}  // namespace slipstream::agent::infer
