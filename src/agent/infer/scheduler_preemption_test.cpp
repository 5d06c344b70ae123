// Scheduler under KV-block pressure: recompute and swap preemption leave outputs unchanged, victims are chosen
// by priority then arrival, and every combination of the features agrees with the oracle.
#include <gtest/gtest.h>

#include <string>
#include <tuple>

#include "agent/infer/scheduler.h"
#include "agent/infer/scheduler_test_support.h"
#include "agent/infer/scripted_model.h"

namespace slipstream::agent::infer {
namespace {

using testing::greedy_request;
using testing::make_prompt;
using testing::Recorder;
using testing::run_to_idle;

struct Expected {
    uint64_t id;
    std::vector<int32_t> tokens;
};

std::vector<Expected> submit_crowd(Scheduler& scheduler, const ScriptedModel& model, Recorder& rec, int n) {
    std::vector<Expected> expected;
    for (int i = 0; i < n; ++i) {
        const auto prompt = make_prompt(6 + i, 40 + static_cast<uint64_t>(i));
        const uint64_t id = *scheduler.submit(greedy_request(prompt, 20, rec));
        expected.push_back({id, model.reference_greedy(prompt, 20)});
    }
    return expected;
}

TEST(SchedulerPreemption, RecomputeEqualsUninterrupted) {
    ScriptedModel model({.num_blocks = 10});
    Recorder rec;
    Scheduler scheduler(model);
    const auto expected = submit_crowd(scheduler, model, rec, 6);
    run_to_idle(scheduler);
    for (const auto& e : expected)
        EXPECT_EQ(rec.get(e.id).tokens, e.tokens) << "request " << e.id;
    EXPECT_EQ(model.corruptions(), 0);
    const SchedulerStats s = scheduler.stats();
    EXPECT_GT(s.preemptions, 0u);
    EXPECT_GT(s.prefix_hit_tokens, 0u);  // re-prefills found their own blocks again
    EXPECT_EQ(s.blocks_used, 0);
}

TEST(SchedulerPreemption, SwapEqualsUninterrupted) {
    ScriptedModel model({.num_blocks = 10});
    Recorder rec;
    Scheduler scheduler(model, {.preemption = PreemptionMode::kSwap});
    const auto expected = submit_crowd(scheduler, model, rec, 6);
    int64_t most_swapped = 0;
    while (scheduler.step())
        most_swapped = std::max(most_swapped, scheduler.stats().swapped);
    for (const auto& e : expected)
        EXPECT_EQ(rec.get(e.id).tokens, e.tokens) << "request " << e.id;
    EXPECT_EQ(model.corruptions(), 0);
    EXPECT_GT(most_swapped, 0);
    EXPECT_GT(model.swaps_out(), 0);
    EXPECT_EQ(model.swaps_in(), model.swaps_out());
    const SchedulerStats s = scheduler.stats();
    EXPECT_EQ(s.swap_bytes, 0);
    EXPECT_EQ(s.blocks_used, 0);
}

TEST(SchedulerPreemption, SwapBeyondTheHostBudgetFallsBackToRecompute) {
    ScriptedModel model({.num_blocks = 10});
    Recorder rec;
    Scheduler scheduler(model, {.preemption = PreemptionMode::kSwap, .max_swap_bytes = 8});
    const auto expected = submit_crowd(scheduler, model, rec, 6);
    run_to_idle(scheduler);
    for (const auto& e : expected)
        EXPECT_EQ(rec.get(e.id).tokens, e.tokens) << "request " << e.id;
    EXPECT_GT(scheduler.stats().preemptions, 0u);
    EXPECT_EQ(model.swaps_in(), 0);
    EXPECT_EQ(model.corruptions(), 0);
}

TEST(SchedulerPreemption, CancelWhileSwappedReleasesHostMemory) {
    ScriptedModel model({.num_blocks = 10});
    Recorder rec;
    Scheduler scheduler(model, {.preemption = PreemptionMode::kSwap});
    const auto expected = submit_crowd(scheduler, model, rec, 6);
    while (scheduler.stats().swapped == 0)
        ASSERT_TRUE(scheduler.step());
    EXPECT_GT(scheduler.stats().swap_bytes, 0);
    for (const auto& e : expected)
        scheduler.cancel(e.id);
    ASSERT_TRUE(scheduler.step());
    const SchedulerStats s = scheduler.stats();
    EXPECT_EQ(s.swap_bytes, 0);
    EXPECT_EQ(s.swapped, 0);
    EXPECT_EQ(s.blocks_used, 0);
}

TEST(SchedulerPreemption, VictimIsLowestPriorityThenLatestArrival) {
    // Three 4-token prompts in 6 blocks of 4: at position 8 each needs a third block and there is none.
    ScriptedModel model({.num_blocks = 6});
    Recorder rec;
    Scheduler scheduler(model);
    const uint64_t a = *scheduler.submit(greedy_request(make_prompt(4, 1), 12, rec, 0));
    const uint64_t b = *scheduler.submit(greedy_request(make_prompt(4, 2), 12, rec, 1));
    const uint64_t c = *scheduler.submit(greedy_request(make_prompt(4, 3), 12, rec, 0));
    while (scheduler.stats().preemptions == 0)
        ASSERT_TRUE(scheduler.step());
    EXPECT_EQ(scheduler.stats().preemptions, 1u);
    EXPECT_EQ(scheduler.stats().waiting, 1);
    EXPECT_EQ(rec.get(a).tokens.size(), 6u);
    EXPECT_EQ(rec.get(b).tokens.size(), 6u);
    EXPECT_EQ(rec.get(c).tokens.size(), 5u);  // c stopped before this step's token
    run_to_idle(scheduler);
    EXPECT_EQ(rec.finish_order(), (std::vector<uint64_t>{b, a, c}));
    EXPECT_EQ(rec.get(c).tokens, model.reference_greedy(make_prompt(4, 3), 12));
    EXPECT_EQ(model.corruptions(), 0);
}

TEST(SchedulerPreemption, SeededSamplingIsUnchangedByPreemption) {
    auto run = [](int64_t num_blocks) {
        ScriptedModel model({.num_blocks = num_blocks});
        Recorder rec;
        Scheduler scheduler(model, {.preemption = PreemptionMode::kRecompute});
        std::vector<uint64_t> ids;
        for (int i = 0; i < 6; ++i) {
            auto req = greedy_request(make_prompt(6 + i, 60 + static_cast<uint64_t>(i)), 20, rec);
            req.sampling.temperature = 1.0f;
            req.sampling.seed = 1000 + static_cast<uint64_t>(i);
            req.sampling.has_seed = true;
            ids.push_back(*scheduler.submit(std::move(req)));
        }
        run_to_idle(scheduler);
        std::vector<std::vector<int32_t>> out;
        for (uint64_t id : ids)
            out.push_back(rec.get(id).tokens);
        return std::make_pair(out, scheduler.stats().preemptions);
    };
    const auto [roomy, no_preemptions] = run(64);
    const auto [tight, preemptions] = run(10);
    EXPECT_EQ(no_preemptions, 0u);
    EXPECT_GT(preemptions, 0u);
    EXPECT_EQ(roomy, tight);
}

// Every combination of preemption mode, prefix cache and speculation, on a crowded cache with shared prefixes,
// chunked prefill and a small token budget, must give the oracle's outputs and return every block.
class SchedulerCombinations : public ::testing::TestWithParam<std::tuple<PreemptionMode, bool, int32_t>> {};

TEST_P(SchedulerCombinations, AgreeWithTheOracle) {
    const auto [mode, cache, spec] = GetParam();
    for (auto model_mode : {ScriptedModelOptions::Mode::kHistory, ScriptedModelOptions::Mode::kBigram}) {
        ScriptedModel model({.vocab = 16, .num_blocks = 16, .mode = model_mode});
        Recorder rec;
        Scheduler scheduler(model, {.max_batch_tokens = 16,
                                    .max_running = 6,
                                    .prefill_chunk = 5,
                                    .preemption = mode,
                                    .enable_prefix_cache = cache,
                                    .speculative_ngram = spec});
        std::vector<Expected> expected;
        for (int i = 0; i < 12; ++i) {
            auto prompt = make_prompt(9, static_cast<uint64_t>(i % 3), 16);  // three shared 9-token prefixes
            const auto tail = make_prompt(1 + i % 5, 100 + static_cast<uint64_t>(i), 16);
            prompt.insert(prompt.end(), tail.begin(), tail.end());
            const int64_t max_tokens = 4 + (i * 7) % 15;
            auto req = greedy_request(prompt, max_tokens, rec, i % 4 == 0 ? 1 : 0);
            const uint64_t id = *scheduler.submit(std::move(req));
            expected.push_back({id, model.reference_greedy(prompt, max_tokens)});
        }
        run_to_idle(scheduler);
        for (const auto& e : expected)
            EXPECT_EQ(rec.get(e.id).tokens, e.tokens) << "request " << e.id;
        EXPECT_EQ(model.corruptions(), 0);
        const SchedulerStats s = scheduler.stats();
        EXPECT_EQ(s.blocks_used, 0);
        EXPECT_EQ(s.swap_bytes, 0);
        EXPECT_GT(s.preemptions, 0u);
        for (const auto& step : model.steps()) {
            int64_t tokens = 0;
            for (const auto& entry : step)
                tokens += entry.num_tokens;
            EXPECT_LE(tokens, 16);
        }
    }
}

INSTANTIATE_TEST_SUITE_P(All, SchedulerCombinations,
                         ::testing::Combine(::testing::Values(PreemptionMode::kRecompute, PreemptionMode::kSwap),
                                            ::testing::Bool(), ::testing::Values(0, 3)),
                         [](const auto& info) {
                             const bool swap = std::get<0>(info.param) == PreemptionMode::kSwap;
                             return std::string(swap ? "Swap" : "Recompute") +
                                    (std::get<1>(info.param) ? "Cache" : "NoCache") + "Spec" +
                                    std::to_string(std::get<2>(info.param));
                         });

}  // namespace
}  // namespace slipstream::agent::infer
