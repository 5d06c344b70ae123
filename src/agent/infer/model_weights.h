// ModelConfig and ModelWeights: a Llama-family decoder's shape and its weights, whatever file they came from.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "agent/infer/ggml_type.h"

namespace slipstream::agent::infer {

struct ModelConfig {
    std::string architecture;  // "llama", "qwen2"
    std::string name;          // general.name, or the file's stem
    int64_t vocab_size = 0;
    int64_t dim = 0;  // embedding length
    int64_t n_layers = 0;
    int64_t n_heads = 0;
    int64_t n_kv_heads = 0;  // < n_heads: grouped-query attention
    int64_t head_dim = 0;    // usually dim / n_heads
    int64_t ffn_dim = 0;
    int64_t context_length = 2048;
    float rms_eps = 1e-5f;
    float rope_theta = 10000.0f;
    bool rope_neox = false;  // false: pairs (2i, 2i+1) (llama); true: (i, i + d/2) (qwen2)
    // RoPE scaling as the metadata says: "none", "linear" (factor), "llama3" (factor, low/high freq factors,
    // original context), "yarn" is rejected by the loader.
    std::string rope_scaling = "none";
    float rope_factor = 1.0f;
    float rope_low_freq_factor = 1.0f;
    float rope_high_freq_factor = 4.0f;
    int64_t rope_original_context = 8192;
    // Per-pair frequency divisors from GGUF's rope_freqs.weight (llama3 models store their scaling this way):
    // pair i turns at rope_theta^(-2i/head_dim) / rope_freq_factors[i], in addition to rope_scaling, as llama.cpp
    // applies them. Empty when the file has none; head_dim / 2 entries otherwise.
    std::vector<float> rope_freq_factors;
};

struct LayerWeights {
    std::vector<float> attn_norm;       // dim
    WeightMatrix wq, wk, wv, wo;        // wq: [n_heads*head_dim x dim], wk/wv: [n_kv_heads*head_dim x dim]
    std::vector<float> bq, bk, bv;      // empty unless the model has attention biases (qwen2)
    std::vector<float> ffn_norm;        // dim
    WeightMatrix w_gate, w_up, w_down;  // gate/up: [ffn_dim x dim], down: [dim x ffn_dim]
};

/// The weights borrow the loaded file's memory (kept alive by `backing`); norms and biases are copied to floats.
/// Q and K rows are in the order the RoPE pairing above expects (GGUF's llama converter already permuted them).
struct ModelWeights {
    ModelConfig config;
    WeightMatrix token_embedding;  // [vocab x dim]
    std::vector<LayerWeights> layers;
    std::vector<float> output_norm;           // dim
    WeightMatrix output;                      // [vocab x dim]; equals token_embedding when tied
    std::shared_ptr<const void> backing;      // the mapped file (GgufFile or llama2.c mapping)
    std::vector<std::vector<uint8_t>> owned;  // converted tensors the views above point into, if any
};

}  // namespace slipstream::agent::infer
