// The decoder's forward pass over a batch of sequences, K/V read and written through block tables.
#include "agent/infer/llama_model.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "agent/infer/kernels.h"

namespace slipstream::agent::infer {

namespace {

void add_in_place(float* x, const float* y, int64_t n) {
    for (int64_t i = 0; i < n; ++i)
        x[i] += y[i];
}

int64_t kv_blocks_for(const ModelConfig& c, const LlamaModelOptions& o) {
    const int64_t block_bytes = c.n_layers * 2 * o.block_size * c.n_kv_heads * c.head_dim * int64_t{sizeof(float)};
    return block_bytes > 0 ? o.kv_cache_bytes / block_bytes : 0;
}

}  // namespace

std::vector<float> rope_inv_freq(const ModelConfig& c) {
    const int64_t half = c.head_dim / 2;
    std::vector<float> inv(static_cast<std::size_t>(half));
    for (int64_t i = 0; i < half; ++i) {
        double freq = std::pow(static_cast<double>(c.rope_theta), -2.0 * static_cast<double>(i) / c.head_dim);
        if (c.rope_scaling == "linear") {
            freq /= c.rope_factor;
        } else if (c.rope_scaling == "llama3") {
            // Long wavelengths are stretched by the factor, short ones kept, the band between interpolated.
            const double pi = 3.14159265358979323846;
            const double wavelen = 2 * pi / freq;
            const double low_wavelen = c.rope_original_context / c.rope_low_freq_factor;
            const double high_wavelen = c.rope_original_context / c.rope_high_freq_factor;
            if (wavelen > low_wavelen) {
                freq /= c.rope_factor;
            } else if (wavelen >= high_wavelen) {
                const double smooth = (c.rope_original_context / wavelen - c.rope_low_freq_factor) /
                                      (c.rope_high_freq_factor - c.rope_low_freq_factor);
                freq = (1 - smooth) * freq / c.rope_factor + smooth * freq;
            }
        }
        if (static_cast<std::size_t>(i) < c.rope_freq_factors.size())
            freq /= c.rope_freq_factors[static_cast<std::size_t>(i)];
        inv[static_cast<std::size_t>(i)] = static_cast<float>(freq);
    }
    return inv;
}

LlamaModel::LlamaModel(ModelWeights weights, LlamaModelOptions options)
    : weights_(std::move(weights)),
      pool_(options.threads),
      cache_(weights_.config.n_layers, weights_.config.n_kv_heads * weights_.config.head_dim, options.block_size,
             kv_blocks_for(weights_.config, options)),
      max_context_(options.max_context > 0 ? options.max_context : weights_.config.context_length),
      inv_freq_(rope_inv_freq(weights_.config)) {
    const ModelConfig& c = weights_.config;
    if (cache_.num_blocks() <= 0)
        throw std::invalid_argument("the KV cache of " + std::to_string(options.kv_cache_bytes) +
                                    " bytes holds no block of " + std::to_string(options.block_size) + " positions");
    if (c.head_dim % 2 != 0 || c.n_kv_heads <= 0 || c.n_heads % c.n_kv_heads != 0)
        throw std::invalid_argument("inconsistent attention shape: " + std::to_string(c.n_heads) + " heads, " +
                                    std::to_string(c.n_kv_heads) + " kv heads, head size " +
                                    std::to_string(c.head_dim));
}

LlamaModel::~LlamaModel() = default;

void LlamaModel::store_kv(int64_t layer) {
    const int64_t kv_dim = cache_.kv_dim(), bs = cache_.block_size();
    for (std::size_t t = 0; t < rows_.size(); ++t) {
        const Row& r = rows_[t];
        const int32_t block = r.entry->block_table[static_cast<std::size_t>(r.pos / bs)];
        const int64_t slot = (r.pos % bs) * kv_dim;
        std::copy_n(k_.data() + t * kv_dim, kv_dim, cache_.keys(block, layer) + slot);
        std::copy_n(v_.data() + t * kv_dim, kv_dim, cache_.values(block, layer) + slot);
    }
}

void LlamaModel::attention_layer(int64_t layer) {
    const ModelConfig& c = weights_.config;
    const int64_t hd = c.head_dim, q_dim = c.n_heads * hd, kv_dim = cache_.kv_dim(), bs = cache_.block_size();
    const int64_t group = c.n_heads / c.n_kv_heads;
    const float scale = 1.0f / std::sqrt(static_cast<float>(hd));
    const int64_t work = static_cast<int64_t>(rows_.size()) * c.n_heads;
    pool_.parallel_for(work, [&](int64_t begin, int64_t end) {
        thread_local std::vector<float> scores;
        for (int64_t w = begin; w < end; ++w) {
            const int64_t t = w / c.n_heads, head = w % c.n_heads, kv_head = head / group;
            const Row& r = rows_[static_cast<std::size_t>(t)];
            const float* q = q_.data() + t * q_dim + head * hd;
            const int64_t n = r.pos + 1;
            if (static_cast<int64_t>(scores.size()) < n) scores.resize(static_cast<std::size_t>(n));
            for (int64_t j = 0; j < n; ++j) {
                const int32_t block = r.entry->block_table[static_cast<std::size_t>(j / bs)];
                const float* k = cache_.keys(block, layer) + (j % bs) * kv_dim + kv_head * hd;
                scores[static_cast<std::size_t>(j)] = kernels::dot(q, k, hd) * scale;
            }
            kernels::softmax(scores.data(), n);
            float* out = att_.data() + t * q_dim + head * hd;
            std::fill_n(out, hd, 0.0f);
            for (int64_t j = 0; j < n; ++j) {
                const int32_t block = r.entry->block_table[static_cast<std::size_t>(j / bs)];
                const float* v = cache_.values(block, layer) + (j % bs) * kv_dim + kv_head * hd;
                kernels::axpy(out, scores[static_cast<std::size_t>(j)], v, hd);
            }
        }
    });
}

void LlamaModel::forward(std::span<const BatchEntry> batch, float* logits) {
    const ModelConfig& c = weights_.config;
    const int64_t dim = c.dim, hd = c.head_dim, q_dim = c.n_heads * hd, kv_dim = c.n_kv_heads * hd;
    rows_.clear();
    int64_t n_out = 0;
    for (const BatchEntry& e : batch) {
        for (std::size_t i = 0; i < e.tokens.size(); ++i)
            rows_.push_back(Row{e.tokens[i], e.start_pos + static_cast<int64_t>(i), &e});
        n_out += e.n_logits;
    }
    const int64_t T = static_cast<int64_t>(rows_.size());
    if (T == 0) return;
    tokens_computed_ += T;
    auto fit = [](std::vector<float>& v, int64_t n) {
        if (static_cast<int64_t>(v.size()) < n) v.resize(static_cast<std::size_t>(n));
    };
    fit(x_, T * dim), fit(h_, T * dim), fit(q_, T * q_dim), fit(k_, T * kv_dim), fit(v_, T * kv_dim);
    fit(att_, T * q_dim), fit(gate_, T * c.ffn_dim), fit(up_, T * c.ffn_dim), fit(out_rows_, n_out * dim);

    // Embeddings.
    pool_.parallel_for(T, [&](int64_t b, int64_t e) {
        for (int64_t t = b; t < e; ++t)
            kernels::dequantize_row(weights_.token_embedding, rows_[static_cast<std::size_t>(t)].token,
                                    x_.data() + t * dim);
    });

    for (int64_t l = 0; l < c.n_layers; ++l) {
        const LayerWeights& w = weights_.layers[static_cast<std::size_t>(l)];
        // Attention block: norm, projections (+ biases), RoPE, K/V into the cache, attention, output, residual.
        pool_.parallel_for(T, [&](int64_t b, int64_t e) {
            for (int64_t t = b; t < e; ++t)
                kernels::rms_norm(h_.data() + t * dim, x_.data() + t * dim, w.attn_norm.data(), dim, c.rms_eps);
        });
        kernels::matmul(w.wq, h_.data(), T, q_.data(), pool_);
        kernels::matmul(w.wk, h_.data(), T, k_.data(), pool_);
        kernels::matmul(w.wv, h_.data(), T, v_.data(), pool_);
        pool_.parallel_for(T, [&](int64_t b, int64_t e) {
            for (int64_t t = b; t < e; ++t) {
                float* q = q_.data() + t * q_dim;
                float* k = k_.data() + t * kv_dim;
                if (!w.bq.empty()) add_in_place(q, w.bq.data(), q_dim);
                if (!w.bk.empty()) add_in_place(k, w.bk.data(), kv_dim);
                if (!w.bv.empty()) add_in_place(v_.data() + t * kv_dim, w.bv.data(), kv_dim);
                const int64_t pos = rows_[static_cast<std::size_t>(t)].pos;
                for (int64_t h = 0; h < c.n_heads; ++h)
                    kernels::rope(q + h * hd, hd, pos, inv_freq_.data(), c.rope_neox);
                for (int64_t h = 0; h < c.n_kv_heads; ++h)
                    kernels::rope(k + h * hd, hd, pos, inv_freq_.data(), c.rope_neox);
            }
        });
        store_kv(l);
        attention_layer(l);
        kernels::matmul(w.wo, att_.data(), T, h_.data(), pool_);
        add_in_place(x_.data(), h_.data(), T * dim);

        // Feed-forward block: norm, SwiGLU, residual.
        pool_.parallel_for(T, [&](int64_t b, int64_t e) {
            for (int64_t t = b; t < e; ++t)
                kernels::rms_norm(h_.data() + t * dim, x_.data() + t * dim, w.ffn_norm.data(), dim, c.rms_eps);
        });
        kernels::matmul(w.w_gate, h_.data(), T, gate_.data(), pool_);
        kernels::matmul(w.w_up, h_.data(), T, up_.data(), pool_);
        pool_.parallel_for(T, [&](int64_t b, int64_t e) {
            kernels::silu_mul(gate_.data() + b * c.ffn_dim, up_.data() + b * c.ffn_dim, (e - b) * c.ffn_dim);
        });
        kernels::matmul(w.w_down, gate_.data(), T, h_.data(), pool_);
        add_in_place(x_.data(), h_.data(), T * dim);
    }

    // Logits for the last n_logits rows of each entry only.
    int64_t out = 0, first = 0;
    for (const BatchEntry& e : batch) {
        const int64_t n = static_cast<int64_t>(e.tokens.size());
        for (int64_t t = first + n - e.n_logits; t < first + n; ++t, ++out)
            kernels::rms_norm(out_rows_.data() + out * dim, x_.data() + t * dim, weights_.output_norm.data(), dim,
                              c.rms_eps);
        first += n;
    }
    if (n_out > 0) kernels::matmul(weights_.output, out_rows_.data(), n_out, logits, pool_);
}

}  // namespace slipstream::agent::infer
