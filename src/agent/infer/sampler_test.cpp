// Tests for Sampler: penalties, greedy ties, truncation supports, seeding, logprobs and distribution fits.
#include "agent/infer/sampler.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <set>

namespace slipstream::agent::infer {
namespace {

// Chi-square critical values at significance 0.001, by degrees of freedom (1..9).
constexpr double kChiSquare001[] = {0, 10.828, 13.816, 16.266, 18.467, 20.515, 22.458, 24.322, 26.124, 27.877};

std::vector<double> log_softmax(const std::vector<double>& x) {
    const double m = *std::max_element(x.begin(), x.end());
    double s = 0.0;
    for (double v : x)
        s += std::exp(v - m);
    std::vector<double> out;
    for (double v : x)
        out.push_back(v - m - std::log(s));
    return out;
}

std::vector<float> log_of(const std::vector<double>& probs) {
    std::vector<float> out;
    for (double p : probs)
        out.push_back(static_cast<float>(std::log(p)));
    return out;
}

std::vector<int64_t> histogram(Sampler& s, const std::vector<float>& logits, int n) {
    std::vector<int64_t> counts(logits.size(), 0);
    for (int i = 0; i < n; ++i)
        ++counts[static_cast<size_t>(s.sample(logits).token)];
    return counts;
}

std::set<int32_t> support(const std::vector<int64_t>& counts) {
    std::set<int32_t> out;
    for (size_t i = 0; i < counts.size(); ++i) {
        if (counts[i] > 0) out.insert(static_cast<int32_t>(i));
    }
    return out;
}

// Pearson's statistic over the tokens with expected > 0; a count where expected == 0 fails the test.
double chi_square(const std::vector<int64_t>& counts, const std::vector<double>& expected_p, int& dof) {
    const double n = static_cast<double>(std::accumulate(counts.begin(), counts.end(), int64_t{0}));
    double stat = 0.0;
    dof = -1;
    for (size_t i = 0; i < counts.size(); ++i) {
        if (expected_p[i] == 0.0) {
            EXPECT_EQ(counts[i], 0) << "token " << i << " is outside the support";
            continue;
        }
        const double e = n * expected_p[i];
        stat += (static_cast<double>(counts[i]) - e) * (static_cast<double>(counts[i]) - e) / e;
        ++dof;
    }
    return stat;
}

// The penalised logits up to a constant, read back through greedy logprobs over the whole vocabulary.
std::vector<double> penalised_differences(Sampler& s, const std::vector<float>& logits) {
    const SampledToken t = s.sample(logits);
    std::vector<double> lp(logits.size(), 0.0);
    EXPECT_EQ(t.top.size(), logits.size());
    for (const TokenLogprob& e : t.top)
        lp[static_cast<size_t>(e.token)] = e.logprob;
    std::vector<double> out;
    for (double v : lp)
        out.push_back(v - lp[0]);
    return out;
}

SamplingParams greedy_with_all_logprobs() {
    SamplingParams p;
    p.temperature = 0.0f;
    p.top_logprobs = 20;
    return p;
}

TEST(SamplerTest, GreedyTakesTheArgmaxAndTiesGoToTheLowestId) {
    SamplingParams p;
    p.temperature = 0.0f;
    Sampler s(p, {}, 1);
    EXPECT_EQ(s.sample(std::vector<float>{1.0f, 3.0f, 3.0f, 2.0f}).token, 1);
    EXPECT_EQ(s.sample(std::vector<float>{-5.0f, -5.0f}).token, 0);
    EXPECT_EQ(s.sample(std::vector<float>{0.0f, 1.0f, 2.0f, 7.0f}).token, 3);
}

TEST(SamplerTest, GreedyLogprobsAreTheLogSoftmaxAtTemperatureOne) {
    Sampler s(greedy_with_all_logprobs(), {}, 1);
    const std::vector<float> logits = {1.0f, 2.0f, 3.0f, 0.5f};
    const std::vector<double> want = log_softmax({1.0, 2.0, 3.0, 0.5});
    SamplingParams p = greedy_with_all_logprobs();
    p.top_logprobs = 2;
    Sampler two(p, {}, 1);
    const SampledToken t = two.sample(logits);
    EXPECT_EQ(t.token, 2);
    EXPECT_NEAR(t.logprob, want[2], 1e-5);
    ASSERT_EQ(t.top.size(), 2u);
    EXPECT_EQ(t.top[0].token, 2);
    EXPECT_NEAR(t.top[0].logprob, want[2], 1e-5);
    EXPECT_EQ(t.top[1].token, 1);
    EXPECT_NEAR(t.top[1].logprob, want[1], 1e-5);
}

TEST(SamplerTest, NoLogprobsUnlessAsked) {
    Sampler s(SamplingParams{}, {}, 1);
    const SampledToken t = s.sample(std::vector<float>{1.0f, 2.0f});
    EXPECT_EQ(t.logprob, 0.0f);
    EXPECT_TRUE(t.top.empty());
}

TEST(SamplerTest, ZeroTopLogprobsGivesTheChosenTokensLogprobOnly) {
    SamplingParams p = greedy_with_all_logprobs();
    p.top_logprobs = 0;
    Sampler s(p, {}, 1);
    const SampledToken t = s.sample(std::vector<float>{0.0f, 0.0f});
    EXPECT_EQ(t.token, 0);
    EXPECT_NEAR(t.logprob, std::log(0.5), 1e-6);
    EXPECT_TRUE(t.top.empty());
}

TEST(SamplerTest, SampledLogprobsFollowTemperatureBeforeTruncation) {
    SamplingParams p;
    p.temperature = 0.5f;
    p.top_k = 1;  // the draw is certain; the logprob still reports the untruncated distribution
    p.top_logprobs = 3;
    Sampler s(p, {}, 7);
    const SampledToken t = s.sample(std::vector<float>{1.0f, 2.0f, 0.0f});
    const std::vector<double> want = log_softmax({2.0, 4.0, 0.0});
    EXPECT_EQ(t.token, 1);
    EXPECT_NEAR(t.logprob, want[1], 1e-5);
    ASSERT_EQ(t.top.size(), 3u);
    const int32_t order[] = {1, 0, 2};
    for (size_t i = 0; i < 3; ++i) {
        EXPECT_EQ(t.top[i].token, order[i]);
        EXPECT_NEAR(t.top[i].logprob, want[static_cast<size_t>(order[i])], 1e-5);
    }
}

TEST(SamplerTest, TopLogprobTiesGoToTheLowestId) {
    SamplingParams p = greedy_with_all_logprobs();
    p.top_logprobs = 3;
    Sampler s(p, {}, 1);
    const SampledToken t = s.sample(std::vector<float>{0.0f, 1.0f, 0.0f, 1.0f, 0.0f});
    ASSERT_EQ(t.top.size(), 3u);
    EXPECT_EQ(t.top[0].token, 1);
    EXPECT_EQ(t.top[1].token, 3);
    EXPECT_EQ(t.top[2].token, 0);
}

TEST(SamplerTest, RepetitionPenaltyDividesPositiveAndMultipliesNegativeLogitsOverPromptAndOutput) {
    SamplingParams p = greedy_with_all_logprobs();
    p.repetition_penalty = 2.0f;
    const std::vector<int32_t> prompt = {1, 1, 4};
    Sampler s(p, prompt, 1);
    s.accept(2);
    s.accept(4);  // in both prompt and output: penalised once
    const std::vector<float> logits = {2.0f, 3.0f, -1.0f, 0.5f, 4.0f};
    // Penalised: {2, 1.5, -2, 0.5, 2}.
    const std::vector<double> d = penalised_differences(s, logits);
    const double want[] = {0.0, -0.5, -4.0, -1.5, 0.0};
    for (size_t i = 0; i < 5; ++i)
        EXPECT_NEAR(d[i], want[i], 1e-5) << i;
}

TEST(SamplerTest, FrequencyPenaltyScalesWithTheOutputCount) {
    SamplingParams p = greedy_with_all_logprobs();
    p.frequency_penalty = 0.5f;
    const std::vector<int32_t> prompt = {0};  // the prompt does not count
    Sampler s(p, prompt, 1);
    s.accept(2);
    s.accept(2);
    s.accept(3);
    const std::vector<float> logits = {1.0f, 1.0f, 1.0f, 1.0f};
    const std::vector<double> d = penalised_differences(s, logits);
    const double want[] = {0.0, 0.0, -1.0, -0.5};
    for (size_t i = 0; i < 4; ++i)
        EXPECT_NEAR(d[i], want[i], 1e-5) << i;
}

TEST(SamplerTest, PresencePenaltyIsOncePerOutputToken) {
    SamplingParams p = greedy_with_all_logprobs();
    p.presence_penalty = 0.75f;
    p.frequency_penalty = 0.25f;
    Sampler s(p, {}, 1);
    s.accept(1);
    s.accept(1);
    s.accept(1);
    s.accept(2);
    const std::vector<float> logits = {0.0f, 0.0f, 0.0f};
    const std::vector<double> d = penalised_differences(s, logits);
    EXPECT_NEAR(d[1], -(0.75 + 3 * 0.25), 1e-5);
    EXPECT_NEAR(d[2], -(0.75 + 0.25), 1e-5);
}

TEST(SamplerTest, PenaltiesChangeTheGreedyChoiceAndIgnoreIdsPastTheVocabulary) {
    SamplingParams p;
    p.temperature = 0.0f;
    p.presence_penalty = 2.0f;
    Sampler s(p, {}, 1);
    const std::vector<float> logits = {1.0f, 2.5f, 0.0f};
    EXPECT_EQ(s.sample(logits).token, 1);
    s.accept(1);
    s.accept(100);
    EXPECT_EQ(s.sample(logits).token, 0);
}

TEST(SamplerTest, TopKKeepsExactlyTheKBest) {
    SamplingParams p;
    p.top_k = 3;
    p.seed = 11;
    p.has_seed = true;
    Sampler s(p, {}, 0);
    // Ties at the boundary go to the lowest id: tokens 2 and 5 tie at 1.0, 2 is kept.
    const std::vector<float> logits = {0.0f, 2.0f, 1.0f, -1.0f, 1.5f, 1.0f, -3.0f, 0.5f};
    EXPECT_EQ(support(histogram(s, logits, 20000)), (std::set<int32_t>{1, 2, 4}));
}

TEST(SamplerTest, TopPKeepsTheSmallestNucleus) {
    const std::vector<float> logits = log_of({0.4, 0.3, 0.15, 0.1, 0.05});
    const std::pair<float, std::set<int32_t>> cases[] = {
        {0.75f, {0, 1, 2}}, {0.5f, {0, 1}}, {0.1f, {0}}, {0.97f, {0, 1, 2, 3, 4}}, {0.88f, {0, 1, 2, 3}}};
    for (const auto& [top_p, want] : cases) {
        SamplingParams p;
        p.top_p = top_p;
        p.seed = 3;
        p.has_seed = true;
        Sampler s(p, {}, 0);
        EXPECT_EQ(support(histogram(s, logits, 20000)), want) << top_p;
    }
}

TEST(SamplerTest, MinPKeepsTokensAtLeastMinPTimesTheMax) {
    const std::vector<float> logits = log_of({0.4, 0.3, 0.15, 0.1, 0.05});
    const std::pair<float, std::set<int32_t>> cases[] = {
        {0.3f, {0, 1, 2}}, {0.2f, {0, 1, 2, 3}}, {0.9f, {0}}, {0.7f, {0, 1}}};
    for (const auto& [min_p, want] : cases) {
        SamplingParams p;
        p.min_p = min_p;
        p.seed = 5;
        p.has_seed = true;
        Sampler s(p, {}, 0);
        EXPECT_EQ(support(histogram(s, logits, 20000)), want) << min_p;
    }
}

TEST(SamplerTest, TopPIsMeasuredAfterTopKAndMinP) {
    const std::vector<float> logits = log_of({0.4, 0.3, 0.15, 0.1, 0.05});
    struct Case {
        int32_t top_k;
        float min_p;
        float top_p;
        std::set<int32_t> want;
    };
    const Case cases[] = {
        {0, 0.0f, 0.55f, {0, 1}},    // 0.4 < 0.55 <= 0.7
        {2, 0.0f, 0.55f, {0}},       // after top-k, 0.4 / 0.7 = 0.571 >= 0.55
        {0, 0.3f, 0.5f, {0, 1}},     // min-p keeps 0.85 of the mass: 0.4 / 0.85 < 0.5 <= 0.7 / 0.85
        {0, 0.5f, 0.55f, {0}},       // min-p keeps {0, 1}: 0.4 / 0.7 >= 0.55
        {3, 0.0f, 1.0f, {0, 1, 2}},  // top-k alone
    };
    for (const Case& c : cases) {
        SamplingParams p;
        p.top_k = c.top_k;
        p.min_p = c.min_p;
        p.top_p = c.top_p;
        p.seed = 9;
        p.has_seed = true;
        Sampler s(p, {}, 0);
        EXPECT_EQ(support(histogram(s, logits, 20000)), c.want) << c.top_k << " " << c.min_p << " " << c.top_p;
    }
}

TEST(SamplerTest, ASeedMakesTheDrawsRepeatable) {
    const std::vector<float> logits = {0.1f, 0.2f, 0.3f, 0.0f, -0.2f, 0.25f};
    auto run = [&](bool has_seed, uint64_t seed, uint64_t fallback) {
        SamplingParams p;
        p.has_seed = has_seed;
        p.seed = seed;
        Sampler s(p, {}, fallback);
        std::vector<int32_t> out;
        for (int i = 0; i < 64; ++i)
            out.push_back(s.sample(logits).token);
        return out;
    };
    EXPECT_EQ(run(true, 42, 1), run(true, 42, 2));  // the request's seed wins over the engine's
    EXPECT_NE(run(true, 42, 1), run(true, 43, 1));
    EXPECT_EQ(run(false, 42, 7), run(false, 99, 7));  // without has_seed the fallback seeds it
    EXPECT_NE(run(false, 0, 7), run(false, 0, 8));
}

TEST(SamplerTest, SamplesFollowTheTruncatedRenormalisedDistribution) {
    const std::vector<float> logits = {1.0f, 0.2f, -0.5f, 2.0f, 0.0f, -2.0f, 1.5f, -1.0f};
    SamplingParams p;
    p.temperature = 1.5f;
    p.top_p = 0.85f;
    p.seed = 2024;
    p.has_seed = true;
    // Expected: softmax(l / 1.5), the smallest prefix by probability reaching 0.85 (0.794 < 0.85 <= 0.877),
    // renormalised.
    std::vector<double> scaled;
    for (float l : logits)
        scaled.push_back(l / 1.5);
    const std::vector<double> lp = log_softmax(scaled);
    std::vector<size_t> order(logits.size());
    std::iota(order.begin(), order.end(), 0);
    std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return lp[a] > lp[b]; });
    std::vector<double> want(logits.size(), 0.0);
    double cum = 0.0;
    for (size_t i : order) {
        want[i] = std::exp(lp[i]);
        cum += want[i];
        if (cum >= 0.85) break;
    }
    for (double& w : want)
        w /= cum;
    ASSERT_EQ(std::count_if(want.begin(), want.end(), [](double w) { return w > 0; }), 5);  // a real cut

    Sampler s(p, {}, 0);
    const std::vector<int64_t> counts = histogram(s, logits, 200000);
    int dof = 0;
    const double stat = chi_square(counts, want, dof);
    ASSERT_EQ(dof, 4);
    EXPECT_LT(stat, kChiSquare001[dof]);
}

TEST(SamplerTest, VerifyEmitsTokensDistributedAsP) {
    const std::vector<float> logits = {0.5f, 1.0f, -0.3f, 0.8f, 0.0f, -1.2f, 0.3f, 1.4f};
    std::vector<double> x(logits.begin(), logits.end());
    std::vector<double> want;
    for (double v : log_softmax(x))
        want.push_back(std::exp(v));
    SamplingParams p;
    p.seed = 77;
    p.has_seed = true;
    Sampler s(p, {}, 0);
    constexpr int32_t kDraft = 3;
    std::vector<int64_t> counts(logits.size(), 0);
    int64_t accepted = 0;
    constexpr int kTrials = 200000;
    for (int i = 0; i < kTrials; ++i) {
        const auto [token, ok] = s.verify(logits, kDraft);
        ++counts[static_cast<size_t>(token.token)];
        accepted += ok ? 1 : 0;
        if (!ok) {
            EXPECT_NE(token.token, kDraft);
        }
    }
    EXPECT_EQ(accepted, counts[kDraft]);  // the draft is emitted exactly when accepted
    int dof = 0;
    const double stat = chi_square(counts, want, dof);
    ASSERT_EQ(dof, 7);
    EXPECT_LT(stat, kChiSquare001[dof]);
}

TEST(SamplerTest, VerifyUnderTruncationRejectsADraftOutsideTheSupport) {
    const std::vector<float> logits = log_of({0.4, 0.3, 0.15, 0.1, 0.05});
    SamplingParams p;
    p.top_k = 2;
    p.seed = 5;
    p.has_seed = true;
    Sampler s(p, {}, 0);
    std::vector<int64_t> counts(logits.size(), 0);
    for (int i = 0; i < 100000; ++i) {
        const auto [token, ok] = s.verify(logits, 4);
        EXPECT_FALSE(ok);
        ++counts[static_cast<size_t>(token.token)];
    }
    int dof = 0;
    const double stat = chi_square(counts, {4.0 / 7, 3.0 / 7, 0, 0, 0}, dof);
    ASSERT_EQ(dof, 1);
    EXPECT_LT(stat, kChiSquare001[dof]);
}

TEST(SamplerTest, VerifyAcceptsTheOnlyKeptToken) {
    SamplingParams p;
    p.top_k = 1;
    Sampler s(p, {}, 3);
    const std::vector<float> logits = {0.0f, 5.0f, 1.0f};
    for (int i = 0; i < 100; ++i) {
        const auto [token, ok] = s.verify(logits, 1);
        EXPECT_TRUE(ok);
        EXPECT_EQ(token.token, 1);
    }
}

TEST(SamplerTest, GreedyVerifyAcceptsOnlyTheArgmax) {
    SamplingParams p;
    p.temperature = 0.0f;
    Sampler s(p, {}, 1);
    const std::vector<float> logits = {0.0f, 2.0f, 2.0f, 1.0f};
    const auto [hit, hit_ok] = s.verify(logits, 1);
    EXPECT_TRUE(hit_ok);
    EXPECT_EQ(hit.token, 1);
    const auto [miss, miss_ok] = s.verify(logits, 2);  // tied with the argmax, but ties go to the lowest id
    EXPECT_FALSE(miss_ok);
    EXPECT_EQ(miss.token, 1);
}

TEST(SamplerTest, LargeVocabularyTopPWithAFlatTailUsesTheWholeRow) {
    // One token at 0 and 100000 at -10 (weight 4.5e-5, below the gathering threshold): the nucleus reaches deep
    // into the tail, in id order among the ties.
    std::vector<float> logits(100001, -10.0f);
    logits[0] = 0.0f;
    SamplingParams p;
    p.top_p = 0.5f;
    p.seed = 1;
    p.has_seed = true;
    const double tail = std::exp(-10.0);
    const double total = 1.0 + 100000 * tail;
    const double need = (0.5 * total - 1.0) / tail;  // tail tokens needed after token 0
    ASSERT_GT(need - std::floor(need), 0.1);         // the boundary is not within rounding of a token
    ASSERT_LT(need - std::floor(need), 0.9);
    const auto boundary = static_cast<int32_t>(std::ceil(need));  // last kept id
    Sampler s(p, {}, 0);
    constexpr int kDraws = 1000;
    int32_t max_id = 0;
    int64_t zeros = 0;
    for (int i = 0; i < kDraws; ++i) {
        const int32_t t = s.sample(logits).token;
        max_id = std::max(max_id, t);
        zeros += t == 0 ? 1 : 0;
    }
    EXPECT_LE(max_id, boundary);
    EXPECT_GE(max_id, boundary - 1000);
    // Token 0 carries 1 / (0.5 * total) of the nucleus.
    EXPECT_NEAR(static_cast<double>(zeros) / kDraws, 1.0 / (1.0 + boundary * tail), 0.05);
}

TEST(SamplerTest, LargeVocabularyTopKAndTopPPickTheSameTokensAsASort) {
    std::vector<float> logits(152000);
    uint64_t x = 12345;
    for (float& l : logits) {
        x = x * 6364136223846793005ULL + 1442695040888963407ULL;
        l = static_cast<float>((x >> 40) % 1000) / 100.0f - 5.0f;  // [-5, 5) in steps of 0.01
    }
    for (int32_t i = 0; i < 30; ++i)
        logits[static_cast<size_t>(i * 997)] = 20.0f - 0.25f * static_cast<float>(i);
    std::vector<int32_t> order(logits.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](int32_t a, int32_t b) { return logits[a] > logits[b]; });

    SamplingParams k;
    k.top_k = 10;
    k.seed = 4;
    k.has_seed = true;
    Sampler sk(k, {}, 0);
    std::set<int32_t> want_k(order.begin(), order.begin() + 10);
    EXPECT_EQ(support(histogram(sk, logits, 3000)), want_k);

    SamplingParams tp;
    tp.top_p = 0.6f;
    tp.seed = 4;
    tp.has_seed = true;
    Sampler sp(tp, {}, 0);
    std::vector<double> x64(logits.begin(), logits.end());
    const std::vector<double> lp = log_softmax(x64);
    std::set<int32_t> want_p;
    double cum = 0.0;
    for (int32_t t : order) {
        want_p.insert(t);
        cum += std::exp(lp[static_cast<size_t>(t)]);
        if (cum >= 0.6) break;
    }
    EXPECT_EQ(support(histogram(sp, logits, 3000)), want_p);
}

}  // namespace
}  // namespace slipstream::agent::infer
