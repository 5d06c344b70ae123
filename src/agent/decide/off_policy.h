// Off-policy estimators over logged decisions: IPS, SNIPS, DM and DR with bootstrap confidence intervals, the
// effective sample size and the logging policy's own value.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace slipstream::agent::decide {

/// One logged decision as an estimator sees it, over the actions that were eligible then.
struct LoggedSample {
    std::vector<double> target;     // the evaluated policy's probability of each eligible action
    std::vector<double> predicted;  // the reward model's prediction for each eligible action (DM, DR)
    std::size_t logged = 0;         // index (into the vectors) of the action taken
    double propensity = 1.0;        // the logging policy's probability of that action (> 0)
    double reward = 0.0;
};

struct Interval {
    double estimate = 0.0;
    double low = 0.0;
    double high = 0.0;
};

struct OffPolicyEstimates {
    std::size_t samples = 0;
    double effective_samples = 0.0;  // (sum w)^2 / sum w^2 of the importance weights w = target / propensity
    Interval ips;                    // mean of w r
    Interval snips;                  // sum w r / sum w
    Interval dm;                     // mean over samples of sum_a target(a) predicted(a)
    Interval dr;                     // dm + mean of w (r - predicted(logged))
    Interval logging;                // mean r: the value of the policy that logged the data
};

/// The estimates, each with a percentile bootstrap interval at `confidence` from `resamples` resamples drawn with
/// `seed` (the same inputs and seed give the same intervals). No samples: every value 0.
OffPolicyEstimates estimate_off_policy(const std::vector<LoggedSample>& samples, std::size_t resamples,
                                       std::uint64_t seed, double confidence = 0.95);

}  // namespace slipstream::agent::decide
