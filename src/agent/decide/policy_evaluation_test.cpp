// evaluate_policy(): a learning candidate against a uniform one on a logged two-action problem; skipped rows.
#include "agent/decide/policy_evaluation.h"

#include <gtest/gtest.h>

#include "agent/decide/policy.h"

namespace slipstream::agent::decide {
namespace {

std::shared_ptr<const CapsuleSpec> spec_with(std::string_view exploration) {
    SpecResult r = parse_capsule_spec(std::string(R"({"actions":[{"id":"left"},{"id":"right"}],)"
                                                  R"("features":{"context":[{"name":"side","type":"categorical"}]},)"
                                                  R"("exploration":)") +
                                          std::string(exploration) + "}",
                                      SpecLimits{});
    EXPECT_TRUE(std::holds_alternative<CapsuleSpec>(r));
    return std::make_shared<const CapsuleSpec>(std::get<CapsuleSpec>(r));
}

// Logged uniformly; reward 1 when the action names the context's side.
std::vector<LoggedDecision> uniform_log(std::size_t n) {
    std::vector<LoggedDecision> log;
    for (std::size_t i = 0; i < n; ++i) {
        const std::string side = i % 2 == 0 ? "left" : "right";
        const std::string action = sample_index(std::vector<double>{0.5, 0.5}, 77 + i) == 0 ? "left" : "right";
        log.push_back(
            {R"({"side":")" + side + R"("})",
             R"({"action":")" + action + R"(","probability":0.5,"ranking":[{"action":"left"},{"action":"right"}]})",
             action == side ? 1.0 : 0.0, ""});
    }
    return log;
}

TEST(PolicyEvaluation, ALearningCandidateBeatsTheUniformLogger) {
    std::vector<LoggedDecision> log = uniform_log(400);
    PolicyEvaluation greedy =
        evaluate_policy(spec_with(R"({"type":"squarecb","gamma":200})"), SpecLimits{}, log, 200, 3);
    PolicyEvaluation uniform =
        evaluate_policy(spec_with(R"({"type":"epsilonGreedy","epsilon":1})"), SpecLimits{}, log, 200, 3);
    EXPECT_EQ(greedy.estimates.samples, 400u);
    EXPECT_EQ(greedy.skipped, 0u);
    // The uniform policy is the logger: IPS weights are all 1, so IPS equals the logged mean.
    EXPECT_DOUBLE_EQ(uniform.estimates.ips.estimate, uniform.estimates.logging.estimate);
    EXPECT_DOUBLE_EQ(uniform.estimates.effective_samples, 400.0);
    EXPECT_NEAR(uniform.estimates.logging.estimate, 0.5, 0.1);
    // The candidate learns the side -> action rule within a few decisions: its value is near 1.
    EXPECT_GT(greedy.estimates.dr.estimate, 0.9);
    EXPECT_GT(greedy.estimates.dr.low, uniform.estimates.dr.high);
    EXPECT_LT(greedy.estimates.effective_samples, 400.0);
}

TEST(PolicyEvaluation, RowsItCannotUseAreSkipped) {
    std::vector<LoggedDecision> log = uniform_log(4);
    log.push_back({R"({"side":"left"})", R"({"action":"up","probability":0.5,"ranking":[{"action":"up"}]})", 1.0, ""});
    log.push_back({R"({"side":"left"})", R"({"action":"left"})", 1.0, ""});
    log.push_back({"not json", log[0].answer_json, 1.0, ""});
    PolicyEvaluation e = evaluate_policy(spec_with(R"({"type":"squarecb"})"), SpecLimits{}, log, 0, 1);
    EXPECT_EQ(e.estimates.samples, 4u);
    EXPECT_EQ(e.skipped, 3u);
}

}  // namespace
}  // namespace slipstream::agent::decide
