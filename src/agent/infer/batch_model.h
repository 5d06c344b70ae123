// BatchModel: what the scheduler steps: one forward pass over many sequences, reading K/V through block tables.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace slipstream::agent::infer {

/// One sequence's part of a step: `tokens` at positions start_pos, start_pos + 1, ... The block table lists the
/// KV blocks of the whole sequence in order (block i holds positions [i * block_size, (i + 1) * block_size)); it
/// covers start_pos + tokens.size() positions. The forward pass writes the new tokens' K/V into those blocks and
/// reads the earlier positions' K/V from them.
struct BatchEntry {
    std::span<const int32_t> tokens;
    int64_t start_pos = 0;
    std::span<const int32_t> block_table;
    int64_t n_logits = 1;  // logits for the last n_logits tokens (0: a prefill chunk that samples nothing)
};

class BatchModel {
  public:
    virtual ~BatchModel() = default;

    virtual int64_t vocab_size() const = 0;
    virtual int64_t block_size() const = 0;  // tokens per KV block
    virtual int64_t num_blocks() const = 0;  // KV blocks the model's cache holds
    virtual int64_t max_context() const = 0;

    /// One step. `logits` receives sum(n_logits) rows of vocab_size floats, in entry order. Called from one
    /// thread at a time (the scheduler's).
    virtual void forward(std::span<const BatchEntry> batch, float* logits) = 0;

    /// Copy-on-write for forked sequences: dst's K/V becomes src's.
    virtual void copy_block(int32_t src, int32_t dst) = 0;
    /// Preemption by swap: a block's K/V out to host memory and back (possibly into another block).
    virtual void swap_out(int32_t block, std::vector<float>& out) = 0;
    virtual void swap_in(int32_t block, const std::vector<float>& in) = 0;
};

}  // namespace slipstream::agent::infer
