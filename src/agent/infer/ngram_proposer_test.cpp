// propose_ngram: the longest recurring suffix, its most recent earlier occurrence, clipped drafts.
#include "agent/infer/ngram_proposer.h"

#include <gtest/gtest.h>

#include <vector>

namespace slipstream::agent::infer {
namespace {

struct Case {
    std::vector<int32_t> tokens;
    int32_t k;
    std::vector<int32_t> expected;
};

TEST(NgramProposer, Table) {
    const Case cases[] = {
        {{}, 3, {}},
        {{7}, 3, {}},
        {{1, 2, 3, 4}, 3, {}},                     // nothing recurs
        {{1, 2, 3, 9, 1, 2, 3}, 2, {9, 1}},        // trigram 1 2 3 at 0, followed by 9 1
        {{1, 2, 3, 9, 1, 2, 3}, 9, {9, 1, 2, 3}},  // clipped at the end of the sequence
        {{5, 1, 2, 8, 3, 1, 2}, 3, {8, 3, 1}},     // bigram 1 2
        {{5, 6, 7, 5}, 2, {6, 7}},                 // unigram 5
        {{4, 1, 7, 4, 2, 8, 4}, 1, {2}},           // the most recent occurrence of 4 wins
        {{3, 3, 3}, 4, {3}},                       // a trigram cannot overlap itself; the bigram 3 3 at 0
        {{1, 2, 3, 1, 2, 3}, 0, {}},               // k = 0: off
    };
    for (const Case& c : cases) {
        EXPECT_EQ(propose_ngram(c.tokens, c.k), c.expected) << "tokens " << c.tokens.size() << " k " << c.k;
    }
}

}  // namespace
}  // namespace slipstream::agent::infer
