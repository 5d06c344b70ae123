// Prompt-lookup drafts: a backwards scan for the sequence's last n-gram.
#include "agent/infer/ngram_proposer.h"

#include <algorithm>

namespace slipstream::agent::infer {

std::vector<int32_t> propose_ngram(std::span<const int32_t> tokens, int32_t k, int32_t max_n) {
    const int64_t size = static_cast<int64_t>(tokens.size());
    if (k <= 0) return {};
    for (int64_t n = std::min<int64_t>(max_n, size - 1); n >= 1; --n) {
        const auto suffix = tokens.subspan(static_cast<size_t>(size - n));
        // An occurrence starting at i ends before the suffix's own last token, so something follows it.
        for (int64_t i = size - n - 1; i >= 0; --i) {
            if (!std::equal(suffix.begin(), suffix.end(), tokens.begin() + i)) continue;
            const int64_t from = i + n;
            const int64_t count = std::min<int64_t>(k, size - from);
            return {tokens.begin() + from, tokens.begin() + from + count};
        }
    }
    return {};
}

void NgramProposer::propose(std::span<DraftRequest> requests) {
    for (DraftRequest& r : requests)
        r.drafts = propose_ngram(r.tokens, r.limit, max_n_);
}

}  // namespace slipstream::agent::infer
