// Prompt-lookup drafts for speculative decoding: what followed the last n-gram where it occurred before.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "agent/infer/draft_proposer.h"

namespace slipstream::agent::infer {

/// Finds the sequence's last n tokens (n = max_n down to 1) earlier in `tokens`, most recent occurrence first,
/// and returns up to k tokens that followed it; empty when no suffix recurs. O(size * max_n).
std::vector<int32_t> propose_ngram(std::span<const int32_t> tokens, int32_t k, int32_t max_n = 3);

/// propose_ngram as a DraftProposer: stateless, one request at a time.
class NgramProposer final : public DraftProposer {
  public:
    explicit NgramProposer(int32_t max_n = 3) : max_n_(max_n) {}
    void propose(std::span<DraftRequest> requests) override;
    void forget(uint64_t, int32_t) override {}

  private:
    int32_t max_n_;
};

}  // namespace slipstream::agent::infer
