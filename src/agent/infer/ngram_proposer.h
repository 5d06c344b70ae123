// Prompt-lookup drafts for speculative decoding: what followed the last n-gram where it occurred before.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace slipstream::agent::infer {

/// Finds the sequence's last n tokens (n = max_n down to 1) earlier in `tokens`, most recent occurrence first,
/// and returns up to k tokens that followed it; empty when no suffix recurs. O(size * max_n).
std::vector<int32_t> propose_ngram(std::span<const int32_t> tokens, int32_t k, int32_t max_n = 3);

}  // namespace slipstream::agent::infer
