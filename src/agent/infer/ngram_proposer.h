// NgramProposer: prompt-lookup speculation, draft tokens copied from where the current suffix occurred before.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace slipstream::agent::infer {

/// Stateless: proposes the tokens that followed the most recent earlier occurrence of the sequence's tail.
class NgramProposer {
  public:
    /// For n from max_ngram down to min_ngram (min_ngram at least 1), looks for the most recent earlier occurrence
    /// of the last n tokens of `tokens` and returns up to k tokens that followed it (fewer when the sequence ends
    /// first). The first n that matches wins. Empty when nothing matches or k <= 0. O(length * n) per n tried.
    static std::vector<int32_t> propose(std::span<const int32_t> tokens, int max_ngram, int min_ngram, int k);
};

}  // namespace slipstream::agent::infer
