// Scheduler with prompt-lookup speculation: greedy outputs equal plain greedy, rejected drafts give their
// blocks back, stop tokens and max_tokens cut inside accepted drafts.
#include <gtest/gtest.h>

#include "agent/infer/scheduler.h"
#include "agent/infer/scheduler_test_support.h"
#include "agent/infer/scripted_model.h"

namespace slipstream::agent::infer {
namespace {

using testing::greedy_request;
using testing::make_prompt;
using testing::Recorder;
using testing::run_to_idle;

using Mode = ScriptedModelOptions::Mode;

TEST(SchedulerSpeculative, GreedyEqualsPlainGreedyAndTakesFewerSteps) {
    ScriptedModel model({.vocab = 16, .mode = Mode::kBigram});
    const auto prompt = make_prompt(12, 3, 16);
    const auto expected = model.reference_greedy(prompt, 60);
    Recorder rec;
    Scheduler scheduler(model, {.speculative_ngram = 4});
    const uint64_t id = *scheduler.submit(greedy_request(prompt, 60, rec));
    const int64_t steps = run_to_idle(scheduler);
    EXPECT_EQ(rec.get(id).tokens, expected);
    EXPECT_EQ(rec.get(id).last.completion_tokens, 60);
    EXPECT_EQ(model.corruptions(), 0);
    const SchedulerStats s = scheduler.stats();
    EXPECT_GT(s.spec_accepted, 0u);
    EXPECT_LE(s.spec_accepted, s.spec_proposed);
    EXPECT_EQ(s.tokens_generated, 60u);
    EXPECT_EQ(static_cast<uint64_t>(steps), s.steps);
    EXPECT_LT(s.steps, 60u);  // plain decoding takes one step per token
    EXPECT_EQ(s.blocks_used, 0);
    size_t most = 0;
    for (size_t n : rec.get(id).tokens_per_event)
        most = std::max(most, n);
    EXPECT_GT(most, 1u);
}

TEST(SchedulerSpeculative, HistoryModelRejectsMostDraftsAndStillAgrees) {
    ScriptedModel model({.vocab = 16, .mode = Mode::kHistory});
    Recorder rec;
    Scheduler scheduler(model, {.speculative_ngram = 3});
    std::vector<std::pair<uint64_t, std::vector<int32_t>>> expected;
    for (int i = 0; i < 4; ++i) {
        const auto prompt = make_prompt(10 + i, 70 + static_cast<uint64_t>(i), 16);
        const uint64_t id = *scheduler.submit(greedy_request(prompt, 40, rec));
        expected.emplace_back(id, model.reference_greedy(prompt, 40));
    }
    run_to_idle(scheduler);
    for (const auto& [id, tokens] : expected)
        EXPECT_EQ(rec.get(id).tokens, tokens);
    EXPECT_EQ(model.corruptions(), 0);
    EXPECT_GT(scheduler.stats().spec_proposed, scheduler.stats().spec_accepted);
    EXPECT_EQ(scheduler.stats().blocks_used, 0);
}

TEST(SchedulerSpeculative, RejectedDraftsGiveTheirBlocksBack) {
    ScriptedModel model({.vocab = 16, .mode = Mode::kHistory});
    Recorder rec;
    Scheduler scheduler(model, {.speculative_ngram = 8});
    const auto prompt = make_prompt(10, 5, 16);
    const uint64_t id = *scheduler.submit(greedy_request(prompt, 40, rec));
    while (scheduler.step()) {
        // Between steps the sequence holds the blocks of its computed positions (all tokens but the last) and
        // nothing for drafts.
        const int64_t computed = 10 + static_cast<int64_t>(rec.get(id).tokens.size()) - 1;
        if (!rec.get(id).finished) {
            EXPECT_EQ(scheduler.stats().blocks_used, (computed + 3) / 4) << "computed " << computed;
        }
    }
    EXPECT_GT(scheduler.stats().spec_proposed, scheduler.stats().spec_accepted);
    EXPECT_EQ(rec.get(id).tokens, model.reference_greedy(prompt, 40));
}

TEST(SchedulerSpeculative, StopTokenAndMaxTokensCutInsideAcceptedDrafts) {
    ScriptedModel model({.vocab = 16, .mode = Mode::kBigram});
    const auto prompt = make_prompt(12, 3, 16);
    const auto full = model.reference_greedy(prompt, 60);
    for (int64_t max_tokens : {7, 13, 29}) {
        Recorder rec;
        Scheduler scheduler(model, {.speculative_ngram = 4});
        const uint64_t id = *scheduler.submit(greedy_request(prompt, max_tokens, rec));
        run_to_idle(scheduler);
        EXPECT_EQ(rec.get(id).tokens, std::vector<int32_t>(full.begin(), full.begin() + max_tokens));
        EXPECT_EQ(rec.get(id).reason, FinishReason::kLength);
    }
    // A stop token late in the output (after drafts start being accepted).
    const int32_t stop = full[40];
    const auto expected = model.reference_greedy(prompt, 60, std::vector<int32_t>{stop});
    Recorder rec;
    Scheduler scheduler(model, {.speculative_ngram = 4});
    auto req = greedy_request(prompt, 60, rec);
    req.sampling.stop_tokens = {stop};
    const uint64_t id = *scheduler.submit(std::move(req));
    run_to_idle(scheduler);
    EXPECT_EQ(rec.get(id).tokens, expected);
    EXPECT_EQ(rec.get(id).reason, FinishReason::kStop);
    EXPECT_EQ(rec.get(id).last.completion_tokens, static_cast<int64_t>(expected.size()));
    EXPECT_EQ(scheduler.stats().blocks_used, 0);
}

TEST(SchedulerSpeculative, ContextLimitHoldsWithDrafts) {
    ScriptedModel model({.vocab = 16, .max_context = 40, .mode = Mode::kBigram});
    Recorder rec;
    Scheduler scheduler(model, {.speculative_ngram = 4});
    const auto prompt = make_prompt(12, 3, 16);
    const uint64_t id = *scheduler.submit(greedy_request(prompt, 100, rec));
    run_to_idle(scheduler);
    EXPECT_EQ(rec.get(id).tokens, model.reference_greedy(prompt, 28));
    EXPECT_EQ(rec.get(id).reason, FinishReason::kLength);
    EXPECT_EQ(model.corruptions(), 0);
}

TEST(SchedulerSpeculative, SampledVerificationRunsToLength) {
    ScriptedModel model({.vocab = 16, .mode = Mode::kBigram});
    Recorder rec;
    Scheduler scheduler(model, {.speculative_ngram = 3});
    auto req = greedy_request(make_prompt(12, 3, 16), 50, rec);
    req.sampling.temperature = 0.7f;
    req.sampling.seed = 7;
    req.sampling.has_seed = true;
    const uint64_t id = *scheduler.submit(std::move(req));
    run_to_idle(scheduler);
    EXPECT_EQ(rec.get(id).tokens.size(), 50u);
    EXPECT_EQ(rec.get(id).reason, FinishReason::kLength);
    EXPECT_EQ(model.corruptions(), 0);
    EXPECT_EQ(scheduler.stats().blocks_used, 0);
}

}  // namespace
}  // namespace slipstream::agent::infer
