// encode_context(), action_vector(), is_eligible(): hashed features from JSON contexts.
#include "agent/decide/feature_encoder.h"

#include <gtest/gtest.h>

#include "agent/decide/feature_hash.h"
#include "base/arena.h"
#include "json/parse.h"

namespace slipstream::agent::decide {
namespace {

CapsuleSpec spec_of(std::string_view json) {
    SpecResult r = parse_capsule_spec(json, SpecLimits{});
    EXPECT_TRUE(std::holds_alternative<CapsuleSpec>(r));
    return std::get<CapsuleSpec>(r);
}

class Contexts {
  public:
    const json::Value& operator()(std::string_view text) {
        auto r = json::parse(text, arena_);
        EXPECT_TRUE(r.is_ok()) << text;
        return *r.value();
    }

  private:
    base::Arena arena_;
};

const char* kSpec = R"({"actions":[{"id":"a","features":{"cost":2}},{"id":"b"}],
  "features":{"dimension":64,"context":[{"name":"user.age","scale":0.5},{"name":"tier","type":"categorical"},
    {"name":"tags","type":"hashed"},{"name":"meta","type":"object"}]}})";

TEST(FeatureHash, StableValuesAndIndexRange) {
    // Stored models depend on these values: a change here must be a deliberate format change.
    EXPECT_EQ(feature_hash(""), feature_hash(""));
    EXPECT_EQ(feature_hash("tier", '=', "pro"), feature_hash("tier=pro"));
    EXPECT_NE(feature_hash("tier=pro"), feature_hash("tier=free"));
    for (std::uint64_t h : {0ull, 1ull, 62ull, 63ull, ~0ull}) {
        std::uint32_t i = feature_index(h, 64);
        EXPECT_GE(i, 1u);
        EXPECT_LT(i, 64u);
    }
    EXPECT_EQ(feature_index(62, 64), 63u);
    EXPECT_EQ(feature_index(63, 64), 1u);
}

TEST(FeatureEncoder, EachKindAndDottedPaths) {
    CapsuleSpec spec = spec_of(kSpec);
    Contexts ctx;
    std::string error;
    auto f =
        encode_context(spec, ctx(R"({"user":{"age":40},"tier":"pro","tags":["x","y"],"meta":{"a":{"b":3},"c":"z"}})"),
                       SpecLimits{}, &error);
    ASSERT_TRUE(error.empty()) << error;
    ASSERT_EQ(f.size(), 6u);
    EXPECT_EQ(f[0].hash, feature_hash("user.age"));
    EXPECT_EQ(f[0].value, 20.0);
    EXPECT_EQ(f[1].hash, feature_hash("tier=pro"));
    EXPECT_EQ(f[2].hash, feature_hash("tags=x"));
    EXPECT_EQ(f[3].hash, feature_hash("tags=y"));
    EXPECT_EQ(f[4].hash, feature_hash("meta.a.b"));
    EXPECT_EQ(f[4].value, 3.0);
    EXPECT_EQ(f[5].hash, feature_hash("meta.c=z"));
    // Absent features add nothing; numbers as categories are their JSON text.
    auto g = encode_context(spec, ctx(R"({"tier":3})"), SpecLimits{}, &error);
    ASSERT_EQ(g.size(), 1u);
    EXPECT_EQ(g[0].hash, feature_hash("tier=3"));
}

TEST(FeatureEncoder, WrongTypesAndTheLimitAreErrors) {
    CapsuleSpec spec = spec_of(kSpec);
    Contexts ctx;
    std::string error;
    EXPECT_TRUE(encode_context(spec, ctx(R"({"user":{"age":"old"}})"), SpecLimits{}, &error).empty());
    EXPECT_EQ(error, "context feature \"user.age\" must be a number");
    error.clear();
    SpecLimits small;
    small.max_context_features = 2;
    EXPECT_TRUE(encode_context(spec, ctx(R"({"tags":["a","b","c"]})"), small, &error).empty());
    EXPECT_EQ(error, "the context yields more than 2 features (the limit)");
}

TEST(FeatureEncoder, PerActionAndSharedVectors) {
    CapsuleSpec spec = spec_of(kSpec);
    Contexts ctx;
    std::string error;
    auto f = encode_context(spec, ctx(R"({"user":{"age":4}})"), SpecLimits{}, &error);
    SparseVector x = action_vector(spec, f, 0);
    ASSERT_EQ(x.size(), 2u);
    EXPECT_EQ(x[0], (std::pair<std::uint32_t, double>{0, 1.0}));
    EXPECT_EQ(x[1], (std::pair<std::uint32_t, double>{feature_index(feature_hash("user.age"), 64), 2.0}));
    EXPECT_EQ(action_vector(spec, f, 1), x);

    spec.learner.kind = LearnerKind::kShared;
    SparseVector a = action_vector(spec, f, 0);
    SparseVector b = action_vector(spec, f, 1);
    // bias + context, then per action feature (indicator, cost): itself and its cross with the context feature.
    EXPECT_EQ(a.size(), 2u + 2u * 2u);
    EXPECT_EQ(b.size(), 2u + 1u * 2u);
    EXPECT_EQ(a[2].first, feature_index(feature_hash("action=a"), 64));
    EXPECT_EQ(a[3].second, 2.0);  // age 2 x indicator 1
    EXPECT_EQ(a[5].second, 4.0);  // age 2 x cost 2
}

TEST(FeatureEncoder, Eligibility) {
    CapsuleSpec spec = spec_of(R"({"actions":[{"id":"a","eligible":{"user.tier":["pro","team"],"beta":true}}]})");
    Contexts ctx;
    EXPECT_TRUE(is_eligible(spec.actions[0], ctx(R"({"user":{"tier":"pro"},"beta":true})")));
    EXPECT_FALSE(is_eligible(spec.actions[0], ctx(R"({"user":{"tier":"free"},"beta":true})")));
    EXPECT_FALSE(is_eligible(spec.actions[0], ctx(R"({"user":{"tier":"pro"}})")));
    EXPECT_FALSE(is_eligible(spec.actions[0], ctx(R"({"user":{"tier":"pro"},"beta":"true"})")));
}

}  // namespace
}  // namespace slipstream::agent::decide
