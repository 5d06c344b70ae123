// estimate_off_policy(): exact values on a small log, and coverage of a known policy value on a synthetic one.
#include "agent/decide/off_policy.h"

#include <gtest/gtest.h>

#include "agent/decide/policy.h"

namespace slipstream::agent::decide {
namespace {

TEST(OffPolicy, ExactValuesOnASmallLog) {
    // Two actions logged uniformly (p = 0.5); the target always takes action 1.
    std::vector<LoggedSample> log = {
        {{0, 1}, {0.2, 0.8}, 1, 0.5, 1.0},
        {{0, 1}, {0.2, 0.8}, 0, 0.5, 0.0},
        {{0, 1}, {0.2, 0.8}, 1, 0.5, 0.5},
        {{0, 1}, {0.2, 0.8}, 0, 0.5, 1.0},
    };
    OffPolicyEstimates e = estimate_off_policy(log, 0, 1);
    EXPECT_EQ(e.samples, 4u);
    EXPECT_DOUBLE_EQ(e.ips.estimate, (2 * 1.0 + 2 * 0.5) / 4);    // weights 2, 0, 2, 0
    EXPECT_DOUBLE_EQ(e.snips.estimate, (2 * 1.0 + 2 * 0.5) / 4);  // sum of weights is 4
    EXPECT_DOUBLE_EQ(e.dm.estimate, 0.8);
    EXPECT_DOUBLE_EQ(e.dr.estimate, 0.8 + (2 * (1.0 - 0.8) + 2 * (0.5 - 0.8)) / 4);
    EXPECT_DOUBLE_EQ(e.logging.estimate, 2.5 / 4);
    EXPECT_DOUBLE_EQ(e.effective_samples, 16.0 / 8.0);
    EXPECT_EQ(e.ips.low, e.ips.estimate);  // no resamples: a point interval
    EXPECT_EQ(estimate_off_policy({}, 10, 1).samples, 0u);
}

// Logged uniformly over 3 actions with Bernoulli rewards of means 0.2, 0.5, 0.8; the target takes action 2 with
// probability 0.9 and action 0 with 0.1: its value is 0.9 * 0.8 + 0.1 * 0.2 = 0.74.
std::vector<LoggedSample> synthetic_log(std::uint64_t seed, std::size_t n) {
    const double mean[3] = {0.2, 0.5, 0.8};
    std::vector<LoggedSample> log;
    for (std::size_t i = 0; i < n; ++i) {
        LoggedSample s;
        s.target = {0.1, 0.0, 0.9};
        s.predicted = {0.3, 0.5, 0.6};  // a biased reward model: DM alone is off, DR corrects it
        s.logged = sample_index(std::vector<double>{1.0 / 3, 1.0 / 3, 1.0 / 3}, seed++);
        s.propensity = 1.0 / 3;
        s.reward = seeded_uniform(seed++) < mean[s.logged] ? 1.0 : 0.0;
        log.push_back(s);
    }
    return log;
}

TEST(OffPolicy, IntervalsCoverTheTrueValue) {
    const double truth = 0.74;
    int ips_covered = 0, dr_covered = 0, dm_covered = 0;
    const int trials = 40;
    for (int t = 0; t < trials; ++t) {
        OffPolicyEstimates e = estimate_off_policy(synthetic_log(1000u * static_cast<std::uint64_t>(t) + 7, 600), 200,
                                                   static_cast<std::uint64_t>(t));
        ips_covered += e.ips.low <= truth && truth <= e.ips.high;
        dr_covered += e.dr.low <= truth && truth <= e.dr.high;
        dm_covered += e.dm.low <= truth && truth <= e.dm.high;
        EXPECT_LT(e.ips.low, e.ips.estimate);
        EXPECT_GT(e.ips.high, e.ips.estimate);
        EXPECT_NEAR(e.logging.estimate, 0.5, 0.1);
    }
    // 95% intervals: expect about 38 of 40; the bound leaves room for the bootstrap's small-sample bias.
    EXPECT_GE(ips_covered, 32);
    EXPECT_GE(dr_covered, 32);
    // The biased model's DM (0.57) is far from the truth and its interval is narrow: it almost never covers.
    EXPECT_LE(dm_covered, 2);
}

}  // namespace
}  // namespace slipstream::agent::decide
