// NgramProposer: finds the latest earlier copy of the sequence's last n tokens and proposes what came after it.
#include "agent/infer/ngram_proposer.h"

#include <algorithm>
#include <cstddef>

namespace slipstream::agent::infer {

std::vector<int32_t> NgramProposer::propose(std::span<const int32_t> tokens, int max_ngram, int min_ngram, int k) {
    const size_t len = tokens.size();
    if (k <= 0 || len < 2) return {};
    const size_t lo = static_cast<size_t>(std::max(min_ngram, 1));
    const size_t hi = std::min(static_cast<size_t>(std::max(max_ngram, 0)), len - 1);
    for (size_t n = hi; n >= lo && n > 0; --n) {
        const std::span<const int32_t> tail = tokens.subspan(len - n);
        // Occurrences start at i <= len - n - 1, so at least one token follows each; the latest one wins.
        for (size_t i = len - n; i-- > 0;) {
            if (tokens[i + n - 1] != tail[n - 1]) continue;
            if (!std::equal(tail.begin(), tail.end(), tokens.begin() + static_cast<ptrdiff_t>(i))) continue;
            const size_t from = i + n;
            const size_t to = std::min(len, from + static_cast<size_t>(k));
            return {tokens.begin() + static_cast<ptrdiff_t>(from), tokens.begin() + static_cast<ptrdiff_t>(to)};
        }
    }
    return {};
}

}  // namespace slipstream::agent::infer
