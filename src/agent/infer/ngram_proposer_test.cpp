// Tests for NgramProposer: which earlier occurrence is found and how many tokens are proposed.
#include "agent/infer/ngram_proposer.h"

#include <gtest/gtest.h>

namespace slipstream::agent::infer {
namespace {

struct Case {
    const char* name;
    std::vector<int32_t> tokens;
    int max_ngram;
    int min_ngram;
    int k;
    std::vector<int32_t> want;
};

TEST(NgramProposerTest, Table) {
    const Case cases[] = {
        {"empty", {}, 3, 1, 4, {}},
        {"single token", {5}, 3, 1, 4, {}},
        {"no earlier occurrence", {1, 2, 3, 4}, 3, 1, 4, {}},
        {"unigram match", {7, 8, 9, 7}, 3, 1, 4, {8, 9, 7}},
        {"k limits the proposal", {7, 8, 9, 7}, 3, 1, 2, {8, 9}},
        {"the sequence end limits the proposal", {1, 2, 3, 1, 2}, 2, 1, 5, {3, 1, 2}},
        {"longest n wins over a more recent shorter match",
         {1, 2, 3, 10, 11, 9, 3, 20, 21, 2, 3},  // "2 3" at 1 (then 10); "3" alone latest at 6 (then 20)
         2,
         1,
         2,
         {10, 11}},
        {"min_ngram 2 ignores unigram matches", {4, 5, 6, 5}, 3, 2, 3, {}},
        {"most recent occurrence wins", {1, 2, 7, 1, 2, 8, 1, 2}, 2, 2, 1, {8}},
        {"overlapping occurrence", {3, 3, 3, 3}, 2, 2, 4, {3}},
        {"max_ngram past the length is clamped", {1, 2, 1, 2}, 10, 1, 3, {1, 2}},
        {"k zero", {7, 8, 9, 7}, 3, 1, 0, {}},
        {"min above max", {7, 8, 9, 7}, 1, 2, 3, {}},
        {"trigram", {5, 6, 7, 8, 0, 6, 7, 9, 5, 6, 7}, 3, 3, 3, {8, 0, 6}},
    };
    for (const Case& c : cases) {
        EXPECT_EQ(NgramProposer::propose(c.tokens, c.max_ngram, c.min_ngram, c.k), c.want) << c.name;
    }
}

}  // namespace
}  // namespace slipstream::agent::infer
