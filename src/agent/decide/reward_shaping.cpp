// shape_reward(): the weighted sum of components, clamped to the reward range.
#include "agent/decide/reward_shaping.h"

#include <algorithm>
#include <cmath>

namespace slipstream::agent::decide {

double clamp_reward(const RewardSpec& spec, double value) {
    return std::clamp(value, spec.min, spec.max);
}

std::variant<double, RewardFailure> shape_reward(const RewardSpec& spec, const RewardInput& input) {
    if (input.value && !input.components.empty())
        return RewardFailure{"", "give either reward or components, not both"};
    if (input.value) {
        if (!std::isfinite(*input.value)) return RewardFailure{"/reward", "must be a finite number"};
        return clamp_reward(spec, *input.value);
    }
    if (input.components.empty()) return RewardFailure{"", "give reward or components"};
    if (spec.components.empty())
        return RewardFailure{"/components", "the capsule's reward defines no components; give reward"};
    double total = 0.0;
    for (const auto& [name, measured] : input.components) {
        auto weight = std::find_if(spec.components.begin(), spec.components.end(),
                                   [&name](const auto& c) { return c.first == name; });
        if (weight == spec.components.end())
            return RewardFailure{"/components/" + name, "is not a component of the capsule's reward"};
        if (!std::isfinite(measured)) return RewardFailure{"/components/" + name, "must be a finite number"};
        total += weight->second * measured;
    }
    return clamp_reward(spec, total);
}

}  // namespace slipstream::agent::decide
