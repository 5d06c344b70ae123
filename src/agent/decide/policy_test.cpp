// Exploration probabilities (sum, floor, the best action's share) and the seeded draw.
#include "agent/decide/policy.h"

#include <gtest/gtest.h>

#include <numeric>

namespace slipstream::agent::decide {
namespace {

double sum(const std::vector<double>& p) {
    return std::accumulate(p.begin(), p.end(), 0.0);
}

TEST(Policy, SquareCbInverseGapWeighting) {
    const std::vector<double> scores{0.2, 0.9, 0.5, 0.9};
    std::vector<double> p = squarecb_probabilities(scores, 10.0, 0.0);
    ASSERT_EQ(p.size(), 4u);
    // K = 4, best = index 1 (first of the tie): 1/(4 + 10*0.7), 1/(4 + 10*0.4), 1/(4 + 0) for the tie.
    EXPECT_DOUBLE_EQ(p[0], 1.0 / 11.0);
    EXPECT_DOUBLE_EQ(p[2], 1.0 / 8.0);
    EXPECT_DOUBLE_EQ(p[3], 1.0 / 4.0);
    EXPECT_NEAR(p[1], 1.0 - 1.0 / 11.0 - 1.0 / 8.0 - 1.0 / 4.0, 1e-15);
    EXPECT_NEAR(sum(p), 1.0, 1e-12);
    // A larger gamma exploits more.
    EXPECT_GT(squarecb_probabilities(scores, 1000.0, 0.0)[1], p[1]);
    // Equal scores: uniform.
    std::vector<double> flat = squarecb_probabilities(std::vector<double>{1, 1, 1}, 50.0, 0.0);
    for (double x : flat)
        EXPECT_NEAR(x, 1.0 / 3.0, 1e-12);
}

TEST(Policy, FloorHoldsAndSumsStayOne) {
    for (double gamma : {1.0, 100.0, 1e6}) {
        for (double floor : {0.0, 0.01, 0.05, 0.2}) {
            std::vector<double> scores{5.0, -3.0, 0.0, 1.0, 4.9};
            std::vector<double> p = squarecb_probabilities(scores, gamma, floor);
            EXPECT_NEAR(sum(p), 1.0, 1e-12);
            for (double x : p)
                EXPECT_GE(x, floor - 1e-15) << gamma << " " << floor;
            std::vector<double> e = epsilon_greedy_probabilities(scores, 0.0, floor);
            EXPECT_NEAR(sum(e), 1.0, 1e-12);
            for (double x : e)
                EXPECT_GE(x, floor - 1e-15);
        }
    }
    // K * floor >= 1: uniform.
    std::vector<double> p = squarecb_probabilities(std::vector<double>{1, 0}, 10, 0.5);
    EXPECT_EQ(p, (std::vector<double>{0.5, 0.5}));
}

TEST(Policy, EpsilonGreedyAndBaseline) {
    std::vector<double> p = epsilon_greedy_probabilities(std::vector<double>{0.1, 0.3, 0.2, 0.0}, 0.2, 0.0);
    EXPECT_DOUBLE_EQ(p[0], 0.05);
    EXPECT_DOUBLE_EQ(p[1], 0.85);
    EXPECT_DOUBLE_EQ(p[2], 0.05);
    std::vector<double> b = baseline_probabilities(5, 3, 0.1);
    EXPECT_DOUBLE_EQ(b[3], 0.92);
    EXPECT_DOUBLE_EQ(b[0], 0.02);
    EXPECT_NEAR(sum(b), 1.0, 1e-12);
}

TEST(Policy, SeededDrawsReplayAndFollowTheProbabilities) {
    const std::vector<double> p{0.1, 0.6, 0.3};
    std::vector<int> counts(3, 0);
    for (std::uint64_t seed = 1000; seed < 31000; ++seed) {
        std::size_t i = sample_index(p, seed);
        ASSERT_EQ(i, sample_index(p, seed));  // a replay with the logged seed draws the same action
        ++counts[i];
    }
    // 30,000 draws: each count within 5 standard deviations (at most ~425) of its expectation.
    EXPECT_NEAR(counts[0], 3000, 300);
    EXPECT_NEAR(counts[1], 18000, 450);
    EXPECT_NEAR(counts[2], 9000, 450);
    EXPECT_EQ(seeded_uniform(42), seeded_uniform(42));
    EXPECT_NE(seeded_uniform(42), seeded_uniform(43));
    EXPECT_NE(fresh_seed(), fresh_seed());
    // A zero-probability action is never drawn, whatever the seed.
    for (std::uint64_t seed = 0; seed < 2000; ++seed)
        EXPECT_NE(sample_index(std::vector<double>{0.5, 0.0, 0.5}, seed), 1u);
}

}  // namespace
}  // namespace slipstream::agent::decide
