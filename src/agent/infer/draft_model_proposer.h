// DraftModelProposer: speculative drafts from a smaller model with the target's vocabulary, greedy and batched.
#pragma once

#include <cstdint>
#include <map>
#include <span>
#include <utility>
#include <vector>

#include "agent/infer/batch_model.h"
#include "agent/infer/block_pool.h"
#include "agent/infer/draft_proposer.h"

namespace slipstream::agent::infer {

/// Runs `model` (same vocabulary as the target; the caller checks) beside the target. Each sequence keeps its own
/// K/V in the draft model's cache, in blocks of this proposer's own pool, and the tokens they were computed from.
/// A step: every sequence catches up on the tokens it has not seen (the longest common prefix of what it fed and
/// the sequence's tokens stays valid, so rejected drafts roll back by themselves and are overwritten later), then
/// the draft model proposes greedily, one forward pass per draft position for all sequences of the step. A sequence
/// whose blocks run out (or that would pass the draft's context) gets no drafts and gives its blocks back.
/// Step thread only; `model` must outlive this and is driven by it alone.
class DraftModelProposer final : public DraftProposer {
  public:
    explicit DraftModelProposer(BatchModel& model);

    void propose(std::span<DraftRequest> requests) override;
    void forget(uint64_t id, int32_t fork) override;

    int32_t blocks_used() const { return pool_.num_used(); }
    int64_t num_sequences() const { return static_cast<int64_t>(states_.size()); }
    /// Tokens the draft model computed: catch-up and drafts.
    uint64_t tokens_forwarded() const { return tokens_forwarded_; }

  private:
    struct State {
        std::vector<int32_t> fed;     // the tokens at positions [0, fed.size()) of its K/V
        std::vector<int32_t> blocks;  // its draft-cache block table
    };
    struct Active {
        DraftRequest* request;
        State* state;
        int64_t start;  // first position to compute in the catch-up
        int32_t limit;
    };
    using Key = std::pair<uint64_t, int32_t>;

    bool reserve(State& state, int64_t positions);
    void release(State& state);
    void forward_position(int32_t j);

    BatchModel& model_;
    const int64_t block_size_;
    const int64_t vocab_;
    BlockPool pool_;
    std::map<Key, State> states_;
    std::vector<Active> active_;
    std::vector<BatchEntry> entries_;
    std::vector<Active*> rows_;
    std::vector<float> logits_;
    uint64_t tokens_forwarded_ = 0;
};

}  // namespace slipstream::agent::infer
