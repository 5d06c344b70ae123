// DraftProposer: what the scheduler asks for speculative draft tokens (prompt lookup, a draft model).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace slipstream::agent::infer {

/// One decoding sequence's ask for drafts this step. `tokens` is the whole sequence (prompt and output); its last
/// token was just sampled and has no K/V in the target yet. The proposer appends at most `limit` tokens to
/// `drafts` (cleared by the scheduler), which the target then verifies in one forward pass.
struct DraftRequest {
    uint64_t id = 0;
    int32_t fork = 0;
    std::span<const int32_t> tokens;
    int32_t limit = 0;
    std::vector<int32_t> drafts;
};

/// Proposals must be deterministic given the tokens (the scheduler verifies them as point masses, which keeps
/// sampled output distributed as the target's). Called from the scheduler's step thread only; may propose nothing
/// for any request (out of memory, nothing to go on) and never fails a request.
class DraftProposer {
  public:
    virtual ~DraftProposer() = default;

    /// Fills each request's drafts, all requests of one step at once (so a model can batch them).
    virtual void propose(std::span<DraftRequest> requests) = 0;
    /// The sequence (id, fork) finished or was preempted: drop whatever is kept for it.
    virtual void forget(uint64_t id, int32_t fork) = 0;
};

}  // namespace slipstream::agent::infer
