// LlamaModel: the Llama-family decoder (RMSNorm, RoPE, grouped-query attention, SwiGLU) as a BatchModel.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "agent/infer/batch_model.h"
#include "agent/infer/kv_cache.h"
#include "agent/infer/model_weights.h"
#include "agent/infer/thread_pool.h"

namespace slipstream::agent::infer {

struct LlamaModelOptions {
    int64_t block_size = 16;                      // positions per KV block
    int64_t kv_cache_bytes = int64_t{256} << 20;  // the KV cache's size; blocks = bytes / block bytes
    int64_t max_context = 0;                      // 0: the model's context length
    int threads = 0;                              // kernel threads; 0: one per CPU
};

/// Weights are read-only and shared; the KV cache and scratch buffers are this object's. forward() runs on
/// one thread at a time and spreads each matmul and the attention over the thread pool.
class LlamaModel final : public BatchModel {
  public:
    /// Throws std::invalid_argument when the KV cache size leaves no block, or a shape is inconsistent (odd
    /// head_dim, heads not a multiple of kv heads). Control plane: called once at startup.
    LlamaModel(ModelWeights weights, LlamaModelOptions options);
    ~LlamaModel() override;

    int64_t vocab_size() const override { return weights_.config.vocab_size; }
    int64_t block_size() const override { return cache_.block_size(); }
    int64_t num_blocks() const override { return cache_.num_blocks(); }
    int64_t max_context() const override { return max_context_; }
    void forward(std::span<const BatchEntry> batch, float* logits) override;
    void copy_block(int32_t src, int32_t dst) override { cache_.copy_block(src, dst); }
    void swap_out(int32_t block, std::vector<float>& out) override { cache_.save_block(block, out); }
    void swap_in(int32_t block, const std::vector<float>& in) override { cache_.load_block(block, in); }

    const ModelConfig& config() const { return weights_.config; }
    /// Tokens forwarded since construction (prompt and generated): what the prefix cache saves shows here.
    int64_t tokens_computed() const { return tokens_computed_; }
    int threads() const { return pool_.size(); }

  private:
    struct Row {  // one token of the step
        int32_t token;
        int64_t pos;
        const BatchEntry* entry;
    };
    void attention_layer(int64_t layer);
    void store_kv(int64_t layer);

    ModelWeights weights_;
    ThreadPool pool_;
    KvCache cache_;
    int64_t max_context_;
    std::vector<float> inv_freq_;
    std::vector<Row> rows_;
    // Scratch, [tokens x width] each.
    std::vector<float> x_, h_, q_, k_, v_, att_, gate_, up_, out_rows_;
    int64_t tokens_computed_ = 0;
};

/// RoPE frequencies for head_dim with the config's theta and scaling (none, linear, llama3).
std::vector<float> rope_inv_freq(const ModelConfig& config);

}  // namespace slipstream::agent::infer
