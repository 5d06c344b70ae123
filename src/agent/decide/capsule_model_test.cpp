// CapsuleModel: decisions (eligibility, modes, replay by seed), snapshots, and learning a synthetic linear
// problem with a known optimum.
#include "agent/decide/capsule_model.h"

#include <gtest/gtest.h>

#include <cmath>
#include <numeric>

#include "agent/decide/policy.h"
#include "base/arena.h"
#include "json/parse.h"

namespace slipstream::agent::decide {
namespace {

std::shared_ptr<const CapsuleSpec> spec_of(std::string_view json) {
    SpecResult r = parse_capsule_spec(json, SpecLimits{});
    if (!std::holds_alternative<CapsuleSpec>(r)) ADD_FAILURE() << std::get<SpecError>(r).pointer;
    return std::make_shared<const CapsuleSpec>(std::get<CapsuleSpec>(r));
}

const json::Value& parse(base::Arena& arena, std::string_view text) {
    auto r = json::parse(text, arena);
    EXPECT_TRUE(r.is_ok());
    return *r.value();
}

const char* kThree = R"({"actions":[{"id":"a"},{"id":"b"},{"id":"c","eligible":{"tier":"pro"}}],
  "features":{"context":[{"name":"x"}]},"exploration":{"gamma":20,"floor":0.01}})";

TEST(CapsuleModel, SquareCbGammaGrowsWithLearnedUpdates) {
    auto spec = spec_of(R"({"actions":[{"id":"a"},{"id":"b"},{"id":"c"}],"features":{"context":[{"name":"x"}]},
      "exploration":{"type":"squarecb","gamma":10,"gammaExponent":0.5}})");
    CapsuleModel model(spec, SpecLimits{}, 1);
    base::Arena arena;
    DecideInput in;
    in.context = &parse(arena, R"({"x":1})");
    for (std::int64_t v = 1; v <= 400; ++v)
        ASSERT_TRUE(model.learn(*in.context, static_cast<std::size_t>(v % 3), v % 3 == 1 ? 1.0 : 0.0, v).is_ok());
    auto d = std::get<DecisionOutcome>(model.decide(in));
    std::vector<double> scores(3), expected_p;
    for (const RankedAction& r : d.ranking)
        scores[r.index] = r.score;
    expected_p = squarecb_probabilities(scores, 10.0 * std::sqrt(400.0), 0.0);  // gamma 10 * 400^0.5
    for (const RankedAction& r : d.ranking)
        EXPECT_DOUBLE_EQ(r.probability, expected_p[r.index]) << r.id;
    EXPECT_EQ(d.ranking.front().id, "b");
    auto bad = parse_capsule_spec(R"({"actions":[{"id":"a"}],"exploration":{"gammaExponent":1.5}})", SpecLimits{});
    ASSERT_TRUE(std::holds_alternative<SpecError>(bad));
    EXPECT_EQ(std::get<SpecError>(bad).pointer, "/exploration/gammaExponent");
}

TEST(CapsuleModel, DecisionsReplayFromTheirSeed) {
    CapsuleModel model(spec_of(kThree), SpecLimits{}, 1);
    base::Arena arena;
    DecideInput in;
    in.context = &parse(arena, R"({"x":0.5,"tier":"pro"})");
    for (std::uint64_t seed = 1; seed < 200; ++seed) {
        in.seed = seed;
        auto a = std::get<DecisionOutcome>(model.decide(in));
        auto b = std::get<DecisionOutcome>(model.decide(in));
        ASSERT_EQ(a.action_index, b.action_index);
        EXPECT_EQ(a.seed, seed);
        EXPECT_EQ(a.action_index, a.ranking[0].index == a.action_index ? a.ranking[0].index : a.action_index);
        double total = 0;
        for (const RankedAction& r : a.ranking)
            total += r.probability;
        EXPECT_NEAR(total, 1.0, 1e-12);
        EXPECT_EQ(a.ranking.size(), 3u);
    }
}

TEST(CapsuleModel, EligibilityRestrictionsAndFailures) {
    CapsuleModel model(spec_of(kThree), SpecLimits{}, 1);
    base::Arena arena;
    DecideInput in;
    in.context = &parse(arena, R"({"x":1})");  // not pro: c is not eligible
    in.seed = 7;
    auto d = std::get<DecisionOutcome>(model.decide(in));
    EXPECT_EQ(d.ranking.size(), 2u);
    EXPECT_NE(d.action, "c");
    in.excluded = {"a"};
    d = std::get<DecisionOutcome>(model.decide(in));
    EXPECT_EQ(d.action, "b");
    EXPECT_EQ(d.probability, 1.0);
    in.excluded = {"a", "b"};
    DecideFailure f = std::get<DecideFailure>(model.decide(in));
    EXPECT_EQ(f.pointer, "/context");
    EXPECT_EQ(f.message, "leaves no eligible action");
    in.excluded.clear();
    in.only = {"b", "zz"};
    f = std::get<DecideFailure>(model.decide(in));
    EXPECT_EQ(f.pointer, "/actions/1");
    in.only.clear();
    in.context = &parse(arena, R"({"x":"one"})");
    f = std::get<DecideFailure>(model.decide(in));
    EXPECT_EQ(f.message, "context feature \"x\" must be a number");
}

TEST(CapsuleModel, BaselineExploreServesTheBaselineMostly) {
    CapsuleModel model(spec_of(R"({"actions":[{"id":"a"},{"id":"b"},{"id":"c"},{"id":"d"}],"mode":"baselineExplore",
                                   "exploration":{"epsilon":0.2}})"),
                       SpecLimits{}, 1);
    base::Arena arena;
    DecideInput in;
    in.context = &parse(arena, "{}");
    EXPECT_EQ(std::get<DecideFailure>(model.decide(in)).pointer, "/baselineAction");
    in.baseline = "c";
    int served = 0;
    for (std::uint64_t seed = 0; seed < 1000; ++seed) {
        in.seed = seed;
        auto d = std::get<DecisionOutcome>(model.decide(in));
        if (d.action == "c") {
            ++served;
            EXPECT_DOUBLE_EQ(d.probability, 0.85);
        } else {
            EXPECT_DOUBLE_EQ(d.probability, 0.05);
        }
    }
    EXPECT_NEAR(served, 850, 60);
    in.baseline = "zz";
    EXPECT_EQ(std::get<DecideFailure>(model.decide(in)).message, "names no eligible action of the capsule");
}

TEST(CapsuleModel, SnapshotRestoresTheSameScores) {
    auto spec = spec_of(kThree);
    CapsuleModel model(spec, SpecLimits{}, 3);
    base::Arena arena;
    for (int i = 0; i < 40; ++i) {
        const json::Value& ctx = parse(arena, "{\"x\":" + std::to_string(i % 7) + "}");
        ASSERT_TRUE(model.learn(ctx, static_cast<std::size_t>(i % 3), (i % 7) / 7.0, i + 1).is_ok());
    }
    CapsuleModel back(spec, SpecLimits{}, 3);
    ASSERT_TRUE(back.restore(model.snapshot()).is_ok());
    EXPECT_EQ(back.version(), 40);
    DecideInput in;
    in.context = &parse(arena, R"({"x":2.5,"tier":"pro"})");
    in.seed = 99;
    auto a = std::get<DecisionOutcome>(model.decide(in));
    auto b = std::get<DecisionOutcome>(back.decide(in));
    ASSERT_EQ(a.ranking.size(), b.ranking.size());
    for (std::size_t i = 0; i < a.ranking.size(); ++i)
        EXPECT_EQ(a.ranking[i].score, b.ranking[i].score);
    CapsuleModel other_generation(spec, SpecLimits{}, 4);
    EXPECT_FALSE(other_generation.restore(model.snapshot()).is_ok());
    EXPECT_FALSE(back.restore("dm1zz").is_ok());
}

// A linear contextual bandit: 5 actions, 3 context numbers in [-1, 1], mean reward 0.5 + 0.25 w_a . x with
// uniform noise of +-0.1. The best action depends on the context. Everything comes from fixed seeds.
struct LinearProblem {
    static constexpr int kActions = 5;
    const double w[kActions][3] = {{1, 0, 0}, {-1, 0, 0}, {0, 1, 0}, {0, -1, 0.5}, {0.3, 0.3, -1}};
    std::uint64_t seed = 12345;
    double uniform() { return seeded_uniform(seed++); }
    double mean(int a, const double* x) const {
        return 0.5 + 0.25 * (w[a][0] * x[0] + w[a][1] * x[1] + w[a][2] * x[2]);
    }
    int best(const double* x) const {
        int b = 0;
        for (int a = 1; a < kActions; ++a)
            if (mean(a, x) > mean(b, x)) b = a;
        return b;
    }
};

TEST(CapsuleModel, LearnsTheBestActionOfALinearProblem) {
    auto spec = spec_of(R"({"actions":[{"id":"a0"},{"id":"a1"},{"id":"a2"},{"id":"a3"},{"id":"a4"}],
      "features":{"dimension":64,"context":[{"name":"x0"},{"name":"x1"},{"name":"x2"}]},
      "exploration":{"type":"squarecb","gamma":200},"learner":{"regularization":1}})");
    CapsuleModel model(spec, SpecLimits{}, 1);
    LinearProblem problem;
    const int rounds = 4000;
    const int tail = 1000;
    int best_in_tail = 0;
    double regret_in_tail = 0.0;
    double uniform_regret_in_tail = 0.0;
    for (int t = 0; t < rounds; ++t) {
        double x[3];
        for (double& v : x)
            v = problem.uniform() * 2 - 1;
        base::Arena arena;
        const json::Value& ctx = parse(arena, "{\"x0\":" + std::to_string(x[0]) + ",\"x1\":" + std::to_string(x[1]) +
                                                  ",\"x2\":" + std::to_string(x[2]) + "}");
        DecideInput in;
        in.context = &ctx;
        in.seed = problem.seed++;
        auto d = std::get<DecisionOutcome>(model.decide(in));
        const int chosen = static_cast<int>(d.action_index);
        const double reward = problem.mean(chosen, x) + (problem.uniform() * 0.2 - 0.1);
        ASSERT_TRUE(model.learn(ctx, d.action_index, reward, t + 1).is_ok());
        if (t >= rounds - tail) {
            const int best = problem.best(x);
            best_in_tail += chosen == best ? 1 : 0;
            regret_in_tail += problem.mean(best, x) - problem.mean(chosen, x);
            double avg = 0;
            for (int a = 0; a < LinearProblem::kActions; ++a)
                avg += problem.mean(a, x) / LinearProblem::kActions;
            uniform_regret_in_tail += problem.mean(best, x) - avg;
        }
    }
    // A uniform policy picks the best action 20% of the time; the learner, once it has learned, most of the time.
    EXPECT_GT(best_in_tail, 700) << "regret " << regret_in_tail << " vs uniform " << uniform_regret_in_tail;
    EXPECT_LT(regret_in_tail, 0.25 * uniform_regret_in_tail);
    EXPECT_EQ(model.version(), rounds);
}

}  // namespace
}  // namespace slipstream::agent::decide
