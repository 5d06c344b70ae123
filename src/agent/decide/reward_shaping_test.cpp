// shape_reward(): plain values, weighted components, clamping and the errors.
#include "agent/decide/reward_shaping.h"

#include <gtest/gtest.h>

namespace slipstream::agent::decide {
namespace {

TEST(RewardShaping, ValuesComponentsAndErrors) {
    RewardSpec spec;
    spec.min = -1.0;
    spec.max = 1.0;
    EXPECT_EQ(std::get<double>(shape_reward(spec, {0.25, {}})), 0.25);
    EXPECT_EQ(std::get<double>(shape_reward(spec, {7.0, {}})), 1.0);
    EXPECT_EQ(std::get<RewardFailure>(shape_reward(spec, {std::nullopt, {{"q", 1}}})).pointer, "/components");
    spec.components = {{"quality", 1.0}, {"latency", -0.001}};
    EXPECT_DOUBLE_EQ(std::get<double>(shape_reward(spec, {std::nullopt, {{"quality", 0.9}, {"latency", 200}}})), 0.7);
    EXPECT_DOUBLE_EQ(std::get<double>(shape_reward(spec, {std::nullopt, {{"latency", 5000}}})), -1.0);
    RewardFailure f = std::get<RewardFailure>(shape_reward(spec, {std::nullopt, {{"cost", 1}}}));
    EXPECT_EQ(f.pointer, "/components/cost");
    EXPECT_EQ(f.message, "is not a component of the capsule's reward");
    EXPECT_EQ(std::get<RewardFailure>(shape_reward(spec, {1.0, {{"quality", 1}}})).message,
              "give either reward or components, not both");
    EXPECT_EQ(std::get<RewardFailure>(shape_reward(spec, {})).message, "give reward or components");
}

}  // namespace
}  // namespace slipstream::agent::decide
