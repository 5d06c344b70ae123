// Scheduler with a draft model: a perfect draft is always accepted, a wrong one never, and either way greedy output
// equals plain greedy; seeded sampling repeats; forks, preemption and a short draft cache keep it right.
#include "agent/infer/draft_model_proposer.h"

#include <gtest/gtest.h>

#include <memory>

#include "agent/infer/scheduler.h"
#include "agent/infer/scheduler_test_support.h"
#include "agent/infer/scripted_model.h"

namespace slipstream::agent::infer {
namespace {

using testing::greedy_request;
using testing::make_prompt;
using testing::Recorder;
using testing::run_to_idle;

// A draft that is always wrong: ScriptedModel's rows rotated by one, so its argmax is the target's minus one.
class ShiftedModel final : public BatchModel {
  public:
    explicit ShiftedModel(ScriptedModelOptions options) : inner_(options) {}
    int64_t vocab_size() const override { return inner_.vocab_size(); }
    int64_t block_size() const override { return inner_.block_size(); }
    int64_t num_blocks() const override { return inner_.num_blocks(); }
    int64_t max_context() const override { return inner_.max_context(); }
    void forward(std::span<const BatchEntry> batch, float* logits) override {
        inner_.forward(batch, logits);
        const int64_t vocab = vocab_size();
        int64_t rows = 0;
        for (const BatchEntry& e : batch)
            rows += e.n_logits;
        for (int64_t r = 0; r < rows; ++r)
            std::rotate(logits + r * vocab, logits + r * vocab + 1, logits + (r + 1) * vocab);
    }
    void copy_block(int32_t src, int32_t dst) override { inner_.copy_block(src, dst); }
    void swap_out(int32_t block, std::vector<float>& out) override { inner_.swap_out(block, out); }
    void swap_in(int32_t block, const std::vector<float>& in) override { inner_.swap_in(block, in); }
    const ScriptedModel& inner() const { return inner_; }

  private:
    ScriptedModel inner_;
};

struct DraftRun {
    std::unique_ptr<Scheduler> scheduler;
    DraftModelProposer* drafter;  // owned by the scheduler
};

DraftRun make_run(BatchModel& target, BatchModel& draft, SchedulerOptions options) {
    auto drafter = std::make_unique<DraftModelProposer>(draft);
    DraftModelProposer* observer = drafter.get();
    return {std::make_unique<Scheduler>(target, std::move(options), std::move(drafter)), observer};
}

TEST(SchedulerDraftModel, PerfectDraftIsAlwaysAcceptedAndTakesFewerSteps) {
    ScriptedModel target;
    ScriptedModel draft;  // the same model: every greedy draft is the target's own choice
    const auto prompt = make_prompt(10, 3);
    const auto expected = target.reference_greedy(prompt, 41);
    Recorder rec;
    DraftRun run = make_run(target, draft, {.speculative_draft = 4});
    const uint64_t id = *run.scheduler->submit(greedy_request(prompt, 41, rec));
    run_to_idle(*run.scheduler);
    EXPECT_EQ(rec.get(id).tokens, expected);
    const SchedulerStats s = run.scheduler->stats();
    // The prefill samples one token, then each step emits four drafts and the target's next: 1 + 8 steps.
    EXPECT_EQ(s.steps, 9u);
    EXPECT_EQ(s.spec_proposed, 32u);
    EXPECT_EQ(s.spec_accepted, 32u);
    EXPECT_EQ(s.tokens_generated, 41u);
    EXPECT_EQ(s.blocks_used, 0);
    EXPECT_EQ(target.corruptions(), 0);
    EXPECT_EQ(draft.corruptions(), 0);
    EXPECT_EQ(run.drafter->blocks_used(), 0);
    EXPECT_EQ(run.drafter->num_sequences(), 0);
    // Nothing was computed twice: the last step fed positions up to 46 + 4 - 1 (a step's last draft is fed by the
    // next step's catch-up), each once.
    EXPECT_EQ(run.drafter->tokens_forwarded(), 49u);

    Recorder plain_rec;
    ScriptedModel plain_model;
    Scheduler plain(plain_model);
    const uint64_t plain_id = *plain.submit(greedy_request(prompt, 41, plain_rec));
    run_to_idle(plain);
    EXPECT_EQ(plain_rec.get(plain_id).tokens, expected);
    EXPECT_EQ(plain.stats().steps, 41u);
}

TEST(SchedulerDraftModel, WrongDraftIsNeverAcceptedAndStillAgrees) {
    ScriptedModel target;
    ShiftedModel draft({});
    Recorder rec;
    DraftRun run = make_run(target, draft, {.speculative_draft = 3});
    std::vector<std::pair<uint64_t, std::vector<int32_t>>> expected;
    for (int i = 0; i < 4; ++i) {
        const auto prompt = make_prompt(8 + 3 * i, 70 + static_cast<uint64_t>(i));
        const uint64_t id = *run.scheduler->submit(greedy_request(prompt, 30, rec));
        expected.emplace_back(id, target.reference_greedy(prompt, 30));
    }
    run_to_idle(*run.scheduler);
    for (const auto& [id, tokens] : expected)
        EXPECT_EQ(rec.get(id).tokens, tokens) << "request " << id;
    const SchedulerStats s = run.scheduler->stats();
    EXPECT_GT(s.spec_proposed, 0u);
    EXPECT_EQ(s.spec_accepted, 0u);
    EXPECT_EQ(s.blocks_used, 0);
    EXPECT_EQ(target.corruptions(), 0);
    EXPECT_EQ(draft.inner().corruptions(), 0);  // rollbacks re-fed the right tokens at the right positions
    EXPECT_EQ(run.drafter->blocks_used(), 0);
}

TEST(SchedulerDraftModel, PartlyRightDraftAgreesWithPlainGreedy) {
    // A bigram draft for a history target: right now and then, wrong otherwise.
    ScriptedModel target({.vocab = 16, .mode = ScriptedModelOptions::Mode::kBigram});
    ScriptedModel draft({.vocab = 16, .mode = ScriptedModelOptions::Mode::kHistory});
    Recorder rec;
    DraftRun run = make_run(target, draft, {.speculative_draft = 5});
    const auto prompt = make_prompt(12, 9, 16);
    const uint64_t id = *run.scheduler->submit(greedy_request(prompt, 60, rec));
    run_to_idle(*run.scheduler);
    EXPECT_EQ(rec.get(id).tokens, target.reference_greedy(prompt, 60));
    EXPECT_EQ(target.corruptions(), 0);
    EXPECT_EQ(draft.corruptions(), 0);
    EXPECT_EQ(run.drafter->blocks_used(), 0);
}

TEST(SchedulerDraftModel, SeededSamplingRepeats) {
    auto sample = [](uint64_t seed) {
        ScriptedModel target({.vocab = 16});
        ScriptedModel draft({.vocab = 16});
        Recorder rec;
        DraftRun run = make_run(target, draft, {.speculative_draft = 4});
        auto req = greedy_request(make_prompt(12, 3, 16), 50, rec);
        req.sampling.temperature = 0.8f;
        req.sampling.seed = seed;
        req.sampling.has_seed = true;
        const uint64_t id = *run.scheduler->submit(std::move(req));
        run_to_idle(*run.scheduler);
        EXPECT_EQ(rec.get(id).reason, FinishReason::kLength);
        EXPECT_EQ(target.corruptions(), 0);
        EXPECT_EQ(draft.corruptions(), 0);
        EXPECT_EQ(run.scheduler->stats().blocks_used, 0);
        EXPECT_EQ(run.drafter->blocks_used(), 0);
        EXPECT_GT(run.scheduler->stats().spec_accepted, 0u);
        return rec.get(id).tokens;
    };
    const auto first = sample(7);
    EXPECT_EQ(first.size(), 50u);
    EXPECT_EQ(sample(7), first);
    EXPECT_NE(sample(8), first);
}

TEST(SchedulerDraftModel, ForksEachDraftOnTheirOwn) {
    ScriptedModel target;
    ScriptedModel draft;
    Recorder rec;
    DraftRun run = make_run(target, draft, {.speculative_draft = 4});
    const auto prompt = make_prompt(9, 21);
    auto req = greedy_request(prompt, 25, rec);
    req.n = 3;
    const uint64_t id = *run.scheduler->submit(std::move(req));
    run_to_idle(*run.scheduler);
    const auto expected = target.reference_greedy(prompt, 25);
    for (int32_t fork = 0; fork < 3; ++fork)
        EXPECT_EQ(rec.get(id, fork).tokens, expected) << "fork " << fork;
    const SchedulerStats s = run.scheduler->stats();
    EXPECT_EQ(s.spec_accepted, s.spec_proposed);
    EXPECT_GT(s.spec_accepted, 0u);
    EXPECT_EQ(s.blocks_used, 0);
    EXPECT_EQ(target.corruptions(), 0);
    EXPECT_EQ(draft.corruptions(), 0);
    EXPECT_EQ(run.drafter->blocks_used(), 0);
}

TEST(SchedulerDraftModel, PreemptionInBothModesAgrees) {
    for (PreemptionMode mode : {PreemptionMode::kRecompute, PreemptionMode::kSwap}) {
        ScriptedModel target({.num_blocks = 14});
        ShiftedModel wrong({});
        ScriptedModel perfect;
        for (BatchModel* draft : {static_cast<BatchModel*>(&wrong), static_cast<BatchModel*>(&perfect)}) {
            Recorder rec;
            DraftRun run = make_run(target, *draft, {.preemption = mode, .speculative_draft = 3});
            std::vector<std::pair<uint64_t, std::vector<int32_t>>> expected;
            for (int i = 0; i < 6; ++i) {
                const auto prompt = make_prompt(6 + i, 40 + static_cast<uint64_t>(i));
                const uint64_t id = *run.scheduler->submit(greedy_request(prompt, 20, rec));
                expected.emplace_back(id, target.reference_greedy(prompt, 20));
            }
            run_to_idle(*run.scheduler);
            for (const auto& [id, tokens] : expected)
                EXPECT_EQ(rec.get(id).tokens, tokens) << "request " << id;
            const SchedulerStats s = run.scheduler->stats();
            EXPECT_GT(s.preemptions, 0u);
            EXPECT_GT(s.spec_proposed, 0u);
            EXPECT_EQ(s.blocks_used, 0);
            EXPECT_EQ(run.drafter->blocks_used(), 0);
        }
        EXPECT_EQ(target.corruptions(), 0);
        EXPECT_EQ(wrong.inner().corruptions(), 0);
        EXPECT_EQ(perfect.corruptions(), 0);
    }
}

TEST(SchedulerDraftModel, ShortDraftCacheAndContextOnlyCostDrafts) {
    // 6 draft blocks of 4 positions: two sequences' catch-ups fit, the rest go without drafts for a while.
    ScriptedModel target;
    ScriptedModel small_cache({.num_blocks = 6});
    ScriptedModel short_context({.max_context = 20});
    for (ScriptedModel* draft : {&small_cache, &short_context}) {
        Recorder rec;
        DraftRun run = make_run(target, *draft, {.speculative_draft = 4});
        std::vector<std::pair<uint64_t, std::vector<int32_t>>> expected;
        for (int i = 0; i < 4; ++i) {
            const auto prompt = make_prompt(7 + i, 90 + static_cast<uint64_t>(i));
            const uint64_t id = *run.scheduler->submit(greedy_request(prompt, 24, rec));
            expected.emplace_back(id, target.reference_greedy(prompt, 24));
        }
        run_to_idle(*run.scheduler);
        for (const auto& [id, tokens] : expected) {
            EXPECT_EQ(rec.get(id).tokens, tokens) << "request " << id;
            EXPECT_EQ(rec.get(id).reason, FinishReason::kLength);
        }
        const SchedulerStats s = run.scheduler->stats();
        EXPECT_GT(s.spec_accepted, 0u);
        EXPECT_EQ(s.spec_accepted, s.spec_proposed);
        EXPECT_LT(s.spec_proposed, 4u * 23u);  // some steps went without
        EXPECT_EQ(run.drafter->blocks_used(), 0);
        EXPECT_EQ(draft->corruptions(), 0);
    }
    EXPECT_EQ(target.corruptions(), 0);
}

}  // namespace
}  // namespace slipstream::agent::infer
