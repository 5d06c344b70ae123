// evaluate_policy(): a spec's policy evaluated off-policy on logged decisions, learning progressively as it goes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "agent/decide/capsule_spec.h"
#include "agent/decide/off_policy.h"

namespace slipstream::agent::decide {

/// A closed decision as logged: its context, its stored answer (action, propensity, the eligible actions in its
/// ranking) and its final reward.
struct LoggedDecision {
    std::string context_json;
    std::string answer_json;
    double reward = 0.0;
    std::string features_json;  // the action features its request gave (empty: the spec's)
};

struct PolicyEvaluation {
    OffPolicyEstimates estimates;
    std::size_t skipped = 0;  // decisions none of whose eligible actions the spec has, or unreadable
};

/// Replays `log` (oldest first) through a fresh model of `spec`: for each decision, the policy's probabilities
/// over the actions eligible then (those the spec still has and whose conditions hold) and its scores as the
/// reward model; then the model learns the logged action's reward. Progressive validation, so the policy is
/// judged only on decisions it has not learned from. The spec's exploration gives the probabilities whatever its
/// mode (baselineExplore and frozen are evaluated as the policy they would learn).
PolicyEvaluation evaluate_policy(std::shared_ptr<const CapsuleSpec> spec, const SpecLimits& limits,
                                 const std::vector<LoggedDecision>& log, std::size_t resamples, std::uint64_t seed);

}  // namespace slipstream::agent::decide
