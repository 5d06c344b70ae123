// ScriptedModel: a test BatchModel whose logits follow from the tokens it reads back through the block tables.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "agent/infer/batch_model.h"

namespace slipstream::agent::infer {

struct ScriptedModelOptions {
    int64_t vocab = 64;
    int64_t block_size = 4;
    int64_t num_blocks = 64;
    int64_t max_context = 512;
    /// kHistory: logits depend on every earlier token (a chained state kept in the KV slots, as a transformer's
    /// K/V depend on the whole prefix). kBigram: on the last two tokens only, so outputs repeat and prompt-lookup
    /// drafts get accepted; the chain is still written and checked.
    enum class Mode { kHistory, kBigram } mode = Mode::kHistory;
};

/// Each KV slot stores (token, position, state) with state(p) = mix(state(p - 1), token(p), p), read through the
/// block table it was given. Every logits row re-walks the chain from position 0 and counts a corruption for any
/// slot that does not hold what the chain says (a wrong block table, a block reused while still needed, a missed
/// swap-in or copy). reference_logits() computes the same rows straight from a token list: the oracle.
class ScriptedModel final : public BatchModel {
  public:
    explicit ScriptedModel(ScriptedModelOptions options = {});

    int64_t vocab_size() const override { return options_.vocab; }
    int64_t block_size() const override { return options_.block_size; }
    int64_t num_blocks() const override { return options_.num_blocks; }
    int64_t max_context() const override { return options_.max_context; }

    void forward(std::span<const BatchEntry> batch, float* logits) override;
    void copy_block(int32_t src, int32_t dst) override;
    void swap_out(int32_t block, std::vector<float>& out) override;
    void swap_in(int32_t block, const std::vector<float>& in) override;

    /// The logits after the last of `tokens`, as forward() must give them.
    std::vector<float> reference_logits(std::span<const int32_t> tokens) const;
    /// Greedy continuation of `prompt` by n tokens (stops early at a stop token, which it includes).
    std::vector<int32_t> reference_greedy(std::span<const int32_t> prompt, int64_t n,
                                          std::span<const int32_t> stop_tokens = {}) const;

    struct EntryRecord {
        int64_t start_pos;
        int64_t num_tokens;
        int64_t n_logits;
    };
    const std::vector<std::vector<EntryRecord>>& steps() const { return steps_; }
    int64_t tokens_forwarded() const { return tokens_forwarded_; }
    int64_t corruptions() const { return corruptions_; }
    int64_t copies() const { return copies_; }
    int64_t swaps_out() const { return swaps_out_; }
    int64_t swaps_in() const { return swaps_in_; }

  private:
    struct Slot {
        int32_t token = -1;
        int64_t pos = -1;
        uint64_t state = 0;
    };
    static constexpr int kFloatsPerSlot = 5;

    Slot* slot(std::span<const int32_t> table, int64_t pos);
    void write_row(uint64_t key, float* row) const;
    uint64_t row_key(std::span<const int32_t> table, int64_t pos);

    ScriptedModelOptions options_;
    std::vector<Slot> slots_;
    std::vector<std::vector<EntryRecord>> steps_;
    int64_t tokens_forwarded_ = 0;
    int64_t corruptions_ = 0;
    int64_t copies_ = 0;
    int64_t swaps_out_ = 0;
    int64_t swaps_in_ = 0;
};

}  // namespace slipstream::agent::infer
