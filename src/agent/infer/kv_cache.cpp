// KvCache storage and whole-block copies (copy-on-write, swap).
#include "agent/infer/kv_cache.h"

#include <algorithm>

namespace slipstream::agent::infer {

KvCache::KvCache(int64_t n_layers, int64_t kv_dim, int64_t block_size, int64_t num_blocks)
    : n_layers_(n_layers),
      kv_dim_(kv_dim),
      block_size_(block_size),
      num_blocks_(num_blocks),
      data_(static_cast<std::size_t>(num_blocks * n_layers * 2 * block_size * kv_dim)) {}

void KvCache::copy_block(int32_t src, int32_t dst) {
    const float* from = data_.data() + offset(src, 0, 0);
    std::copy(from, from + block_floats(), data_.data() + offset(dst, 0, 0));
}

void KvCache::save_block(int32_t block, std::vector<float>& out) const {
    const float* from = data_.data() + offset(block, 0, 0);
    out.assign(from, from + block_floats());
}

void KvCache::load_block(int32_t block, const std::vector<float>& in) {
    std::copy_n(in.data(), std::min<int64_t>(static_cast<int64_t>(in.size()), block_floats()),
                data_.data() + offset(block, 0, 0));
}

}  // namespace slipstream::agent::infer
