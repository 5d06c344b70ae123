// parse_capsule_spec(): a valid spec's values, and each kind of mistake named by its JSON pointer.
#include "agent/decide/capsule_spec.h"

#include <gtest/gtest.h>

namespace slipstream::agent::decide {
namespace {

TEST(CapsuleSpec, ParsesEveryPart) {
    SpecResult r = parse_capsule_spec(R"({
      "actions": [{"id": "small", "features": {"cost": 1, "size": {"params": 7}}},
                  {"id": "large", "eligible": {"user.tier": ["pro", "team"]}}],
      "features": {"dimension": 32, "context": [{"name": "user.tier", "type": "categorical"},
                                                {"name": "len", "scale": 0.01}]},
      "reward": {"range": [-1, 2], "default": 0.5, "waitSeconds": 30, "aggregation": "sum",
                 "components": {"quality": 1, "latency": -0.001}},
      "exploration": {"type": "epsilonGreedy", "epsilon": 0.1, "floor": 0.01},
      "learner": {"type": "shared", "regularization": 2, "learningRate": 0.5, "forgetting": 0.99},
      "mode": "baselineExplore"})",
                                      SpecLimits{});
    ASSERT_TRUE(std::holds_alternative<CapsuleSpec>(r)) << std::get<SpecError>(r).pointer;
    const CapsuleSpec& s = std::get<CapsuleSpec>(r);
    ASSERT_EQ(s.actions.size(), 2u);
    EXPECT_EQ(s.actions[0].features,
              (std::vector<std::pair<std::string, double>>{{"cost", 1.0}, {"size.params", 7.0}}));
    ASSERT_EQ(s.actions[1].eligible.size(), 1u);
    EXPECT_EQ(s.actions[1].eligible[0].path, "user.tier");
    EXPECT_EQ(s.actions[1].eligible[0].allowed, (std::vector<std::string>{"\"pro\"", "\"team\""}));
    EXPECT_EQ(s.dimension, 32u);
    ASSERT_EQ(s.features.size(), 2u);
    EXPECT_EQ(s.features[0].kind, FeatureKind::kCategorical);
    EXPECT_EQ(s.features[1].kind, FeatureKind::kNumeric);
    EXPECT_EQ(s.features[1].scale, 0.01);
    EXPECT_EQ(s.reward.min, -1.0);
    EXPECT_EQ(s.reward.max, 2.0);
    EXPECT_EQ(s.reward.default_reward, 0.5);
    EXPECT_EQ(s.reward.wait_seconds, 30.0);
    EXPECT_EQ(s.reward.aggregation, Aggregation::kSum);
    EXPECT_EQ(s.reward.components.size(), 2u);
    EXPECT_EQ(s.exploration.kind, ExplorationKind::kEpsilonGreedy);
    EXPECT_EQ(s.exploration.epsilon, 0.1);
    EXPECT_EQ(s.learner.kind, LearnerKind::kShared);
    EXPECT_EQ(s.learner.forgetting, 0.99);
    EXPECT_EQ(s.mode, Mode::kBaselineExplore);
    EXPECT_EQ(s.action_index("large"), 1);
    EXPECT_EQ(s.action_index("none"), -1);
}

TEST(CapsuleSpec, DefaultsAndModelKey) {
    SpecResult a = parse_capsule_spec(R"({"actions":[{"id":"a"},{"id":"b"}]})", SpecLimits{});
    SpecResult b = parse_capsule_spec(R"({"actions":[{"id":"a"},{"id":"b"}],"mode":"frozen",
                                         "exploration":{"gamma":5}})",
                                      SpecLimits{});
    SpecResult c = parse_capsule_spec(R"({"actions":[{"id":"a"},{"id":"c"}]})", SpecLimits{});
    ASSERT_TRUE(std::holds_alternative<CapsuleSpec>(a));
    const CapsuleSpec& s = std::get<CapsuleSpec>(a);
    EXPECT_EQ(s.mode, Mode::kLearner);
    EXPECT_EQ(s.exploration.kind, ExplorationKind::kSquareCb);
    EXPECT_EQ(s.dimension, 64u);
    EXPECT_EQ(s.reward.aggregation, Aggregation::kFirst);
    // Mode and exploration do not touch the model; the actions do.
    EXPECT_EQ(std::get<CapsuleSpec>(b).model_key, s.model_key);
    EXPECT_NE(std::get<CapsuleSpec>(c).model_key, s.model_key);
    EXPECT_EQ(std::get<CapsuleSpec>(b).mode, Mode::kFrozen);
}

struct BadSpec {
    const char* json;
    const char* pointer;
    const char* message;
};

TEST(CapsuleSpec, ErrorsNameTheField) {
    const BadSpec cases[] = {
        {"[1]", "", "must be an object"},
        {"{}", "/actions", "is required"},
        {R"({"actions":[]})", "/actions", "must be a non-empty array"},
        {R"({"actions":[{"id":"a"},{"id":"a"}]})", "/actions/1/id", "repeats the action id \"a\""},
        {R"({"actions":[{"name":"a"}]})", "/actions/0/name", "is not a known member"},
        {R"({"actions":[{}]})", "/actions/0/id", "is required"},
        {R"({"actions":[{"id":""}]})", "/actions/0/id", "must be 1 to 128 bytes"},
        {R"({"actions":[{"id":"a","features":{"x":"big"}}]})", "/actions/0/features/x",
         "must be a number or an object of numbers"},
        {R"({"actions":[{"id":"a","eligible":{"t":[]}}]})", "/actions/0/eligible/t", "must list 1 to 64 values"},
        {R"({"actions":[{"id":"a"}],"exploration":{"gama":1}})", "/exploration/gama", "is not a known member"},
        {R"({"actions":[{"id":"a"}],"exploration":{"gamma":-1}})", "/exploration/gamma",
         "must be > 0 and <= 1000000000"},
        {R"({"actions":[{"id":"a"}],"exploration":{"type":"ucb"}})", "/exploration/type",
         "must be squarecb or epsilonGreedy"},
        {R"({"actions":[{"id":"a"},{"id":"b"}],"exploration":{"floor":0.6}})", "/exploration/floor",
         "times the number of actions must be at most 1"},
        {R"({"actions":[{"id":"a"}],"features":{"dimension":100000}})", "/features/dimension",
         "must be an integer from 2 to 256"},
        {R"({"actions":[{"id":"a"}],"features":{"context":[{"name":"x","type":"text"}]}})", "/features/context/0/type",
         "must be one of numeric, categorical, hashed, object"},
        {R"({"actions":[{"id":"a"}],"reward":{"range":[1,0]}})", "/reward/range", "must have min < max"},
        {R"({"actions":[{"id":"a"}],"reward":{"default":3}})", "/reward/default", "must be >= 0 and <= 1"},
        {R"({"actions":[{"id":"a"}],"reward":{"aggregation":"max"}})", "/reward/aggregation", "must be first or sum"},
        {R"({"actions":[{"id":"a"}],"reward":{"components":{"q":"x"}}})", "/reward/components/q", "must be a number"},
        {R"({"actions":[{"id":"a"}],"learner":{"forgetting":0}})", "/learner/forgetting", "must be > 0 and <= 1"},
        {R"({"actions":[{"id":"a"}],"mode":"auto"})", "/mode", "must be one of learner, baselineExplore, frozen"},
        {R"({"actions":[{"id":"a"})", "", "not JSON: Expecting ',' delimiter"},
    };
    for (const BadSpec& c : cases) {
        SpecResult r = parse_capsule_spec(c.json, SpecLimits{});
        ASSERT_TRUE(std::holds_alternative<SpecError>(r)) << c.json;
        EXPECT_EQ(std::get<SpecError>(r).pointer, c.pointer) << c.json;
        EXPECT_EQ(std::get<SpecError>(r).message, c.message) << c.json;
    }
}

TEST(CapsuleSpec, LimitsAreKnobs) {
    SpecLimits limits;
    limits.max_actions = 2;
    limits.max_spec_bytes = 200;
    SpecResult r = parse_capsule_spec(R"({"actions":[{"id":"a"},{"id":"b"},{"id":"c"}]})", limits);
    ASSERT_TRUE(std::holds_alternative<SpecError>(r));
    EXPECT_EQ(std::get<SpecError>(r).pointer, "/actions");
    EXPECT_EQ(std::get<SpecError>(r).message, "has more than 2 actions (the limit)");
    r = parse_capsule_spec(std::string(201, ' '), limits);
    EXPECT_EQ(std::get<SpecError>(r).message, "the spec is larger than 200 bytes (the limit)");
    // Two actions of dimension 64: 2 arms x 2 matrices x 64 x 64 doubles = 131072 bytes.
    SpecLimits small_models;
    small_models.max_model_bytes = 131072;
    const char* two = R"({"actions":[{"id":"a"},{"id":"b"}]})";
    ASSERT_TRUE(std::holds_alternative<CapsuleSpec>(parse_capsule_spec(two, small_models)));
    small_models.max_model_bytes = 131071;
    r = parse_capsule_spec(two, small_models);
    EXPECT_EQ(std::get<SpecError>(r).pointer, "/features/dimension");
    EXPECT_EQ(std::get<SpecError>(r).message, "gives a model of 131072 bytes with these actions; the limit is 131071");
}

}  // namespace
}  // namespace slipstream::agent::decide
