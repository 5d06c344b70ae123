// Scheduler forks (parallel sampling, n > 1): equal to n independent requests, the prompt forwarded once, copy-on-write
// exactly when a shared partial block is written, preemption, cancellation, deadlines, drafts and constraints per fork.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "agent/infer/scheduler.h"
#include "agent/infer/scheduler_test_support.h"
#include "agent/infer/scripted_model.h"
#include "agent/infer/token_constraint.h"

namespace slipstream::agent::infer {
namespace {

using testing::greedy_request;
using testing::make_prompt;
using testing::Recorder;
using testing::run_to_idle;
using Tokens = std::vector<int32_t>;

GenerationRequest sampled_request(Tokens prompt, int64_t max_tokens, uint64_t seed, Recorder& rec) {
    GenerationRequest r = greedy_request(std::move(prompt), max_tokens, rec);
    r.sampling.temperature = 0.9f;
    r.sampling.top_logprobs = 2;
    r.sampling.seed = seed;
    r.sampling.has_seed = true;
    return r;
}

// What n requests submitted one by one give (seed + i each), each alone in a fresh scheduler.
std::vector<Tokens> independent(const GenerationRequest& like, int n, ScriptedModelOptions model_options = {}) {
    std::vector<Tokens> out;
    for (int i = 0; i < n; ++i) {
        ScriptedModel model(model_options);
        Recorder rec;
        Scheduler scheduler(model);
        GenerationRequest r = like;
        r.n = 1;
        r.sampling.seed += static_cast<uint64_t>(i);
        r.on_event = rec.callback();
        const uint64_t id = *scheduler.submit(std::move(r));
        run_to_idle(scheduler);
        out.push_back(rec.get(id).tokens);
    }
    return out;
}

std::vector<Tokens> forks_of(const Recorder& rec, uint64_t id, int n) {
    std::vector<Tokens> out;
    for (int i = 0; i < n; ++i)
        out.push_back(rec.get(id, i).tokens);
    return out;
}

TEST(SchedulerFork, GreedyForksEqualTheReferenceAndForwardThePromptOnce) {
    ScriptedModel model;
    Recorder rec;
    Scheduler scheduler(model);
    const Tokens prompt = make_prompt(10, 1);
    auto req = greedy_request(prompt, 8, rec);
    req.n = 4;
    const uint64_t id = *scheduler.submit(std::move(req));
    run_to_idle(scheduler);
    for (int i = 0; i < 4; ++i) {
        const auto o = rec.get(id, i);
        EXPECT_EQ(o.tokens, model.reference_greedy(prompt, 8)) << "fork " << i;
        EXPECT_EQ(o.reason, FinishReason::kLength);
        EXPECT_EQ(o.last.fork, i);
        EXPECT_EQ(o.last.prompt_tokens, 10);
        EXPECT_EQ(o.last.completion_tokens, 8);
        EXPECT_EQ(o.tokens_per_event, std::vector<size_t>(8, 1));
    }
    // The prompt once, then 7 decodes per fork (each fork's 8th token is never forwarded).
    EXPECT_EQ(model.tokens_forwarded(), 10 + 4 * 7);
    EXPECT_EQ(model.corruptions(), 0);
    const SchedulerStats s = scheduler.stats();
    EXPECT_EQ(s.steps, 8u);
    EXPECT_EQ(s.tokens_generated, 32u);
    EXPECT_EQ(s.blocks_copied, 3u);  // the third block (2 of 4 positions) was shared by 4; the last writer keeps it
    EXPECT_EQ(model.copies(), 3);
    EXPECT_EQ(s.blocks_used, 0);
    EXPECT_EQ(s.running + s.waiting + s.swapped, 0);
}

TEST(SchedulerFork, SampledForksEqualIndependentRequestsWithSeedPlusFork) {
    ScriptedModel model;
    Recorder rec;
    Scheduler scheduler(model, {.prefill_chunk = 4});  // the prompt's last chunk is its third
    auto req = sampled_request(make_prompt(11, 2), 12, 40, rec);
    const auto expected = independent(req, 5);
    req.n = 5;
    const uint64_t id = *scheduler.submit(std::move(req));
    run_to_idle(scheduler);
    EXPECT_EQ(forks_of(rec, id, 5), expected);
    EXPECT_NE(expected[0], expected[1]);  // the seeds differ, so do the samples
    EXPECT_EQ(model.tokens_forwarded(), 11 + 5 * 11);
    EXPECT_EQ(model.corruptions(), 0);
    EXPECT_EQ(scheduler.stats().blocks_used, 0);
}

struct CopyCase {
    int64_t prompt;
    int32_t n;
    int64_t max_tokens;
    uint64_t copies;
};

class SchedulerForkCopy : public ::testing::TestWithParam<CopyCase> {};

TEST_P(SchedulerForkCopy, CopiesExactlyWhenASharedPartialBlockIsWritten) {
    const CopyCase c = GetParam();
    ScriptedModel model;  // 4 positions per block
    Recorder rec;
    Scheduler scheduler(model);
    const Tokens prompt = make_prompt(c.prompt, 3);
    auto req = greedy_request(prompt, c.max_tokens, rec);
    req.n = c.n;
    const uint64_t id = *scheduler.submit(std::move(req));
    run_to_idle(scheduler);
    for (int i = 0; i < c.n; ++i)
        EXPECT_EQ(rec.get(id, i).tokens, model.reference_greedy(prompt, c.max_tokens)) << "fork " << i;
    EXPECT_EQ(scheduler.stats().blocks_copied, c.copies);
    EXPECT_EQ(model.copies(), static_cast<int64_t>(c.copies));
    EXPECT_EQ(model.corruptions(), 0);
    EXPECT_EQ(scheduler.stats().blocks_used, 0);
}

INSTANTIATE_TEST_SUITE_P(All, SchedulerForkCopy,
                         ::testing::Values(CopyCase{8, 3, 6, 0},    // whole blocks only: each fork writes a new one
                                           CopyCase{9, 3, 6, 2},    // one partial block, three writers
                                           CopyCase{11, 2, 6, 1},   // the first write fills the shared block
                                           CopyCase{9, 3, 1, 0},    // one token each: nothing is written
                                           CopyCase{9, 1, 6, 0},    // no forks
                                           CopyCase{1, 6, 3, 5}));  // a one-token prompt

TEST(SchedulerFork, PrefixCacheBlocksAreSharedButNeverCopied) {
    ScriptedModel model;
    Recorder rec;
    Scheduler scheduler(model);
    const Tokens prompt = make_prompt(12, 4);
    const uint64_t first = *scheduler.submit(greedy_request(prompt, 5, rec));
    run_to_idle(scheduler);
    auto req = greedy_request(prompt, 5, rec);
    req.n = 2;
    const uint64_t second = *scheduler.submit(std::move(req));
    run_to_idle(scheduler);
    EXPECT_EQ(rec.get(second, 0).last.cached_prompt_tokens, 8);
    EXPECT_EQ(rec.get(second, 1).last.cached_prompt_tokens, 8);
    for (int i = 0; i < 2; ++i)
        EXPECT_EQ(rec.get(second, i).tokens, rec.get(first).tokens);
    EXPECT_EQ(scheduler.stats().blocks_copied, 0u);  // prompt of 12: the forks write into new blocks
    EXPECT_EQ(model.corruptions(), 0);
    EXPECT_EQ(scheduler.stats().blocks_used, 0);
}

class SchedulerForkPreemption : public ::testing::TestWithParam<PreemptionMode> {};

TEST_P(SchedulerForkPreemption, ForksUnderBlockPressureEqualIndependentRequests) {
    const ScriptedModelOptions small{.num_blocks = 12};
    ScriptedModel model(small);
    Recorder rec;
    Scheduler scheduler(model, {.preemption = GetParam()});
    auto req = sampled_request(make_prompt(6, 5), 24, 7, rec);
    const auto expected = independent(req, 4, small);
    req.n = 4;
    const uint64_t id = *scheduler.submit(std::move(req));
    run_to_idle(scheduler);
    EXPECT_EQ(forks_of(rec, id, 4), expected);
    const SchedulerStats s = scheduler.stats();
    EXPECT_GT(s.preemptions, 0u);
    EXPECT_EQ(model.corruptions(), 0);
    EXPECT_EQ(s.blocks_used, 0);
    EXPECT_EQ(s.swap_bytes, 0);
}

INSTANTIATE_TEST_SUITE_P(All, SchedulerForkPreemption,
                         ::testing::Values(PreemptionMode::kRecompute, PreemptionMode::kSwap));

TEST(SchedulerFork, PreemptingOneForkLeavesTheOthersRunning) {
    // 19 positions, 5 blocks a fork, the first shared: 14 blocks hold three forks, not four. The latest fork is
    // the victim; the others never stop (a prefill and 13 decodes: done at step 14).
    ScriptedModel model({.num_blocks = 14});
    Recorder rec;
    Scheduler scheduler(model);
    const Tokens prompt = make_prompt(6, 6);
    auto req = greedy_request(prompt, 14, rec);
    req.n = 4;
    const uint64_t id = *scheduler.submit(std::move(req));
    std::vector<int64_t> finished_at(4, -1);
    for (int64_t steps = 1; scheduler.step(); ++steps) {
        for (int i = 0; i < 4; ++i)
            if (finished_at[static_cast<size_t>(i)] < 0 && rec.get(id, i).finished)
                finished_at[static_cast<size_t>(i)] = steps;
    }
    for (int i = 0; i < 4; ++i)
        EXPECT_EQ(rec.get(id, i).tokens, model.reference_greedy(prompt, 14)) << "fork " << i;
    EXPECT_EQ(scheduler.stats().preemptions, 1u);
    EXPECT_EQ(finished_at[0], 14);
    EXPECT_EQ(finished_at[1], 14);
    EXPECT_EQ(finished_at[2], 14);
    EXPECT_GT(finished_at[3], 14);
    EXPECT_EQ(model.corruptions(), 0);
    EXPECT_EQ(scheduler.stats().blocks_used, 0);
}

TEST(SchedulerFork, CancellingOneForkLeavesTheOthers) {
    ScriptedModel model;
    Recorder rec;
    Scheduler scheduler(model);
    const Tokens prompt = make_prompt(9, 7);
    auto req = greedy_request(prompt, 10, rec);
    req.n = 3;
    const uint64_t id = *scheduler.submit(std::move(req));
    ASSERT_TRUE(scheduler.step());
    ASSERT_TRUE(scheduler.step());
    scheduler.cancel(id, 1);
    scheduler.cancel(id, 7);  // no such fork: ignored
    run_to_idle(scheduler);
    EXPECT_EQ(rec.get(id, 1).reason, FinishReason::kCancelled);
    EXPECT_EQ(rec.get(id, 1).tokens.size(), 2u);
    for (int i : {0, 2}) {
        EXPECT_EQ(rec.get(id, i).tokens, model.reference_greedy(prompt, 10)) << "fork " << i;
        EXPECT_EQ(rec.get(id, i).reason, FinishReason::kLength);
    }
    EXPECT_EQ(model.corruptions(), 0);
    EXPECT_EQ(scheduler.stats().blocks_used, 0);
}

TEST(SchedulerFork, CancellingTheRequestCancelsEveryFork) {
    ScriptedModel model;
    Recorder rec;
    Scheduler scheduler(model);
    auto running = greedy_request(make_prompt(9, 8), 50, rec);
    running.n = 3;
    const uint64_t a = *scheduler.submit(std::move(running));
    ASSERT_TRUE(scheduler.step());
    auto queued = greedy_request(make_prompt(9, 9), 50, rec);
    queued.n = 2;
    const uint64_t b = *scheduler.submit(std::move(queued));
    scheduler.cancel(a);
    scheduler.cancel(b);
    ASSERT_TRUE(scheduler.step());
    for (int i = 0; i < 3; ++i) {
        EXPECT_EQ(rec.get(a, i).reason, FinishReason::kCancelled);
        EXPECT_EQ(rec.get(a, i).tokens.size(), 1u);
    }
    for (int i = 0; i < 2; ++i) {
        EXPECT_EQ(rec.get(b, i).reason, FinishReason::kCancelled);
        EXPECT_TRUE(rec.get(b, i).tokens.empty());
    }
    EXPECT_FALSE(scheduler.step());
    const SchedulerStats s = scheduler.stats();
    EXPECT_EQ(s.blocks_used, 0);
    EXPECT_EQ(s.running + s.waiting + s.swapped, 0);
}

TEST(SchedulerFork, CancellingTheForkThatPrefillsHandsThePromptOn) {
    ScriptedModel model;
    Recorder rec;
    Scheduler scheduler(model, {.prefill_chunk = 4});
    const Tokens prompt = make_prompt(14, 10);
    auto req = greedy_request(prompt, 6, rec);
    req.n = 4;
    const uint64_t id = *scheduler.submit(std::move(req));
    ASSERT_TRUE(scheduler.step());  // positions 0..3
    scheduler.cancel(id, 0);
    scheduler.cancel(id, 2);  // pending: just leaves
    run_to_idle(scheduler);
    for (int i : {0, 2}) {
        EXPECT_EQ(rec.get(id, i).reason, FinishReason::kCancelled);
        EXPECT_TRUE(rec.get(id, i).tokens.empty());
    }
    for (int i : {1, 3}) {
        EXPECT_EQ(rec.get(id, i).tokens, model.reference_greedy(prompt, 6)) << "fork " << i;
        EXPECT_EQ(rec.get(id, i).last.cached_prompt_tokens, 4);  // fork 0's first block, from the prefix cache
    }
    // 4 by fork 0, the other 10 by fork 1, then 5 decodes for each of the two.
    EXPECT_EQ(model.tokens_forwarded(), 4 + 10 + 2 * 5);
    EXPECT_EQ(scheduler.stats().waiting, 0);
    EXPECT_EQ(model.corruptions(), 0);
    EXPECT_EQ(scheduler.stats().blocks_used, 0);
}

TEST(SchedulerFork, DeadlineEndsEveryFork) {
    using Clock = std::chrono::steady_clock;
    Clock::time_point now{std::chrono::seconds(100)};
    ScriptedModel model;
    Recorder rec;
    Scheduler scheduler(model, {.clock = [&] { return now; }});
    auto req = greedy_request(make_prompt(5, 11), 50, rec);
    req.n = 3;
    req.deadline = now + std::chrono::seconds(1);
    const uint64_t id = *scheduler.submit(std::move(req));
    ASSERT_TRUE(scheduler.step());
    ASSERT_TRUE(scheduler.step());
    now += std::chrono::seconds(2);
    ASSERT_TRUE(scheduler.step());
    for (int i = 0; i < 3; ++i) {
        EXPECT_EQ(rec.get(id, i).reason, FinishReason::kDeadline);
        EXPECT_EQ(rec.get(id, i).tokens.size(), 2u);
    }
    EXPECT_EQ(scheduler.stats().blocks_used, 0);
}

TEST(SchedulerFork, StopFinishesPendingForksOnceEach) {
    ScriptedModel model;
    Recorder rec;
    Scheduler scheduler(model, {.prefill_chunk = 2});
    auto req = greedy_request(make_prompt(9, 12), 50, rec);
    req.n = 3;
    const uint64_t id = *scheduler.submit(std::move(req));
    ASSERT_TRUE(scheduler.step());
    scheduler.stop();  // forks 1 and 2 are still pending
    for (int i = 0; i < 3; ++i) {
        EXPECT_EQ(rec.get(id, i).reason, FinishReason::kCancelled);
        EXPECT_EQ(rec.get(id, i).tokens_per_event, std::vector<size_t>{0});
    }
    EXPECT_EQ(scheduler.stats().blocks_used, 0);
    EXPECT_EQ(scheduler.stats().waiting, 0);
}

TEST(SchedulerFork, SpeculativeForksEqualPlainGreedy) {
    const ScriptedModelOptions bigram{.vocab = 16, .mode = ScriptedModelOptions::Mode::kBigram};
    ScriptedModel model(bigram);
    Recorder rec;
    Scheduler scheduler(model, {.speculative_ngram = 3});
    const Tokens prompt = make_prompt(10, 13, 16);
    auto req = greedy_request(prompt, 30, rec);
    req.n = 3;
    const uint64_t id = *scheduler.submit(std::move(req));
    run_to_idle(scheduler);
    for (int i = 0; i < 3; ++i)
        EXPECT_EQ(rec.get(id, i).tokens, model.reference_greedy(prompt, 30)) << "fork " << i;
    const SchedulerStats s = scheduler.stats();
    EXPECT_GT(s.spec_accepted, 0u);
    EXPECT_EQ(s.blocks_copied, 2u);
    EXPECT_EQ(model.corruptions(), 0);
    EXPECT_EQ(s.blocks_used, 0);
}

TEST(SchedulerFork, MaxRunningCountsPendingForks) {
    ScriptedModel model;
    Recorder rec;
    Scheduler scheduler(model, {.max_running = 3});
    auto forked = greedy_request(make_prompt(7, 14), 6, rec);
    forked.n = 3;
    const uint64_t a = *scheduler.submit(std::move(forked));
    const uint64_t b = *scheduler.submit(greedy_request(make_prompt(5, 15), 6, rec));
    int64_t most = 0;
    while (scheduler.step())
        most = std::max(most, scheduler.stats().running);
    EXPECT_EQ(most, 3);
    EXPECT_EQ(rec.finish_order().back(), b);  // admitted only once a's forks were done
    EXPECT_EQ(rec.get(a, 2).tokens.size(), 6u);
    EXPECT_EQ(rec.get(b).tokens.size(), 6u);
    EXPECT_EQ(scheduler.stats().blocks_used, 0);
}

TEST(SchedulerFork, SubmitChecksNAndCountsForksAgainstTheQueue) {
    ScriptedModel model;
    Recorder rec;
    Scheduler scheduler(model, {.max_waiting = 4});
    for (int32_t n : {0, -1, Scheduler::kMaxForks + 1}) {
        auto r = greedy_request({1, 2}, 1, rec);
        r.n = n;
        auto result = scheduler.submit(std::move(r));
        ASSERT_FALSE(result.is_ok());
        EXPECT_TRUE(result.status().is_invalid_argument());
        EXPECT_EQ(result.status().message(), "n is " + std::to_string(n) + "; it must be in 1..256");
    }
    auto three = greedy_request({1, 2}, 1, rec);
    three.n = 3;
    EXPECT_TRUE(scheduler.submit(std::move(three)).is_ok());
    auto two = greedy_request({1, 2}, 1, rec);
    two.n = 2;
    auto refused = scheduler.submit(std::move(two));
    ASSERT_FALSE(refused.is_ok());
    EXPECT_TRUE(refused.status().is_resource_exhausted());
    EXPECT_TRUE(scheduler.submit(greedy_request({1, 2}, 1, rec)).is_ok());
    ASSERT_TRUE(scheduler.step());
    EXPECT_EQ(scheduler.stats().waiting, 0);
}

// Allows even tokens only. Each copy logs what it accepted into a log of its own, which outlives it in `logs`.
class EvenTokens : public TokenConstraint {
  public:
    using Logs = std::vector<std::shared_ptr<std::vector<int32_t>>>;
    EvenTokens(bool cloneable, std::shared_ptr<Logs> logs, std::vector<int32_t> accepted = {})
        : cloneable_(cloneable),
          logs_(std::move(logs)),
          accepted_(std::make_shared<std::vector<int32_t>>(std::move(accepted))) {
        logs_->push_back(accepted_);
    }
    bool allows(int32_t token) override { return token >= 0 && token % 2 == 0; }
    void accept(int32_t token) override { accepted_->push_back(token); }
    bool complete() override { return true; }
    std::unique_ptr<TokenConstraint> clone() const override {
        return cloneable_ ? std::make_unique<EvenTokens>(true, logs_, *accepted_) : nullptr;
    }

  private:
    bool cloneable_;
    std::shared_ptr<Logs> logs_;
    std::shared_ptr<std::vector<int32_t>> accepted_;
};

TEST(SchedulerFork, EachForkHasItsOwnConstraint) {
    ScriptedModel model;
    Recorder rec;
    Scheduler scheduler(model);
    auto logs = std::make_shared<EvenTokens::Logs>();
    auto req = sampled_request(make_prompt(9, 16), 12, 3, rec);
    req.constraint = std::make_shared<EvenTokens>(true, logs);
    std::vector<Tokens> expected;
    {
        auto others = std::make_shared<EvenTokens::Logs>();
        GenerationRequest like = req;
        for (int i = 0; i < 3; ++i) {
            ScriptedModel alone;
            Recorder r;
            Scheduler s(alone);
            GenerationRequest one = like;
            one.sampling.seed += static_cast<uint64_t>(i);
            one.constraint = std::make_shared<EvenTokens>(true, others);
            one.on_event = r.callback();
            const uint64_t id = *s.submit(std::move(one));
            run_to_idle(s);
            expected.push_back(r.get(id).tokens);
        }
    }
    req.n = 3;
    const uint64_t id = *scheduler.submit(std::move(req));
    run_to_idle(scheduler);
    EXPECT_EQ(forks_of(rec, id, 3), expected);
    ASSERT_EQ(logs->size(), 3u);  // the request's and two clones, in fork order
    for (int i = 0; i < 3; ++i) {
        EXPECT_EQ(*(*logs)[static_cast<size_t>(i)], expected[static_cast<size_t>(i)]);
        for (int32_t t : expected[static_cast<size_t>(i)])
            EXPECT_EQ(t % 2, 0);
    }
    EXPECT_NE(expected[0], expected[1]);
    EXPECT_EQ(model.corruptions(), 0);
    EXPECT_EQ(scheduler.stats().blocks_used, 0);

    auto uncloneable = greedy_request({1, 2}, 1, rec);
    uncloneable.constraint = std::make_shared<EvenTokens>(false, logs);
    uncloneable.n = 2;
    auto refused = scheduler.submit(std::move(uncloneable));
    ASSERT_FALSE(refused.is_ok());
    EXPECT_EQ(refused.status().message(), "n > 1 needs a constraint that can be cloned");
}

}  // namespace
}  // namespace slipstream::agent::infer
