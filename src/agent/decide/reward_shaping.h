// Reward shaping: a reward request's value or named components to the number the learner sees.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "agent/decide/capsule_spec.h"

namespace slipstream::agent::decide {

/// What a reward request may carry: a plain value, or components (name -> measurement) the spec weighs.
struct RewardInput {
    std::optional<double> value;
    std::vector<std::pair<std::string, double>> components;
};

/// Why a reward cannot be shaped: a pointer into the request body and why.
struct RewardFailure {
    std::string pointer;
    std::string message;
};

/// value, or sum of weight * component over the spec's components (an absent component counts 0), clamped to
/// the spec's range. A request with both or neither, an unknown component, or components when the spec
/// defines none, fails.
std::variant<double, RewardFailure> shape_reward(const RewardSpec& spec, const RewardInput& input);

/// `value` clamped to the spec's range.
double clamp_reward(const RewardSpec& spec, double value);

}  // namespace slipstream::agent::decide
