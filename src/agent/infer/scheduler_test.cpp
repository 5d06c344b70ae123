// Scheduler: outputs against the ScriptedModel oracle alone and batched, chunked prefill, the prefix cache,
// stop and length limits, validation, cancellation, deadlines, priorities, the queue limit and the step thread.
#include "agent/infer/scheduler.h"

#include <gtest/gtest.h>

#include "agent/infer/scheduler_test_support.h"
#include "agent/infer/scripted_model.h"

namespace slipstream::agent::infer {
namespace {

using testing::greedy_request;
using testing::make_prompt;
using testing::Recorder;
using testing::run_to_idle;

TEST(Scheduler, OneGreedyRequestMatchesTheReference) {
    ScriptedModel model;
    Recorder rec;
    Scheduler scheduler(model);
    const auto prompt = make_prompt(10, 1);
    const uint64_t id = *scheduler.submit(greedy_request(prompt, 12, rec));
    run_to_idle(scheduler);
    const auto o = rec.get(id);
    EXPECT_EQ(o.tokens, model.reference_greedy(prompt, 12));
    EXPECT_TRUE(o.finished);
    EXPECT_EQ(o.reason, FinishReason::kLength);
    EXPECT_EQ(o.last.prompt_tokens, 10);
    EXPECT_EQ(o.last.completion_tokens, 12);
    EXPECT_EQ(o.last.cached_prompt_tokens, 0);
    EXPECT_EQ(o.tokens_per_event, std::vector<size_t>(12, 1));
    EXPECT_EQ(model.corruptions(), 0);
    // One prefill of 10, then 11 decodes (the 12th token is never forwarded).
    EXPECT_EQ(model.tokens_forwarded(), 21);
    const SchedulerStats s = scheduler.stats();
    EXPECT_EQ(s.steps, 12u);
    EXPECT_EQ(s.tokens_generated, 12u);
    EXPECT_EQ(s.blocks_used, 0);
    EXPECT_EQ(s.running + s.waiting + s.swapped, 0);
}

TEST(Scheduler, StopTokenEndsTheRequestAndIsEmitted) {
    ScriptedModel model;
    Recorder rec;
    Scheduler scheduler(model);
    const auto prompt = make_prompt(7, 2);
    const auto full = model.reference_greedy(prompt, 20);
    auto req = greedy_request(prompt, 20, rec);
    req.sampling.stop_tokens = {full[4]};
    const auto expected = model.reference_greedy(prompt, 20, req.sampling.stop_tokens);
    ASSERT_LE(expected.size(), 5u);
    const uint64_t id = *scheduler.submit(std::move(req));
    run_to_idle(scheduler);
    EXPECT_EQ(rec.get(id).tokens, expected);
    EXPECT_EQ(rec.get(id).reason, FinishReason::kStop);
    EXPECT_EQ(scheduler.stats().blocks_used, 0);
}

TEST(Scheduler, IgnoreEosRunsPastStopTokens) {
    ScriptedModel model;
    Recorder rec;
    Scheduler scheduler(model);
    const auto prompt = make_prompt(7, 2);
    const auto full = model.reference_greedy(prompt, 9);
    auto req = greedy_request(prompt, 9, rec);
    req.sampling.stop_tokens = {full[1]};
    req.sampling.ignore_eos = true;
    const uint64_t id = *scheduler.submit(std::move(req));
    run_to_idle(scheduler);
    EXPECT_EQ(rec.get(id).tokens, full);
    EXPECT_EQ(rec.get(id).reason, FinishReason::kLength);
}

TEST(Scheduler, BatchedEqualsAlone) {
    ScriptedModel model;
    Recorder rec;
    Scheduler scheduler(model, {.max_batch_tokens = 64});
    std::vector<std::pair<uint64_t, std::vector<int32_t>>> expected;
    for (int i = 0; i < 8; ++i) {
        const auto prompt = make_prompt(3 + 5 * i, 10 + static_cast<uint64_t>(i));
        const int64_t max_tokens = 5 + 3 * i;
        const uint64_t id = *scheduler.submit(greedy_request(prompt, max_tokens, rec));
        expected.emplace_back(id, model.reference_greedy(prompt, max_tokens));
    }
    run_to_idle(scheduler);
    for (const auto& [id, tokens] : expected)
        EXPECT_EQ(rec.get(id).tokens, tokens) << "request " << id;
    EXPECT_EQ(model.corruptions(), 0);
    size_t widest = 0;
    for (const auto& step : model.steps())
        widest = std::max(widest, step.size());
    EXPECT_EQ(widest, 8u);
    for (const auto& step : model.steps()) {
        int64_t tokens = 0;
        for (const auto& e : step)
            tokens += e.num_tokens;
        EXPECT_LE(tokens, 64);
    }
    EXPECT_EQ(scheduler.stats().blocks_used, 0);
}

TEST(Scheduler, ChunkedPrefillEqualsOnePrefill) {
    ScriptedModel model;
    Recorder rec;
    Scheduler scheduler(model, {.prefill_chunk = 5});
    const auto prompt = make_prompt(23, 3);
    const uint64_t id = *scheduler.submit(greedy_request(prompt, 6, rec));
    run_to_idle(scheduler);
    EXPECT_EQ(rec.get(id).tokens, model.reference_greedy(prompt, 6));
    EXPECT_EQ(model.corruptions(), 0);
    ASSERT_GE(model.steps().size(), 5u);
    const int64_t chunks[] = {5, 5, 5, 5, 3};
    for (size_t i = 0; i < 5; ++i) {
        ASSERT_EQ(model.steps()[i].size(), 1u);
        EXPECT_EQ(model.steps()[i][0].start_pos, static_cast<int64_t>(5 * i));
        EXPECT_EQ(model.steps()[i][0].num_tokens, chunks[i]);
        EXPECT_EQ(model.steps()[i][0].n_logits, i == 4 ? 1 : 0);
    }
}

TEST(Scheduler, DecodesGoFirstAndPrefillChunksTakeTheRestOfTheBudget) {
    ScriptedModel model;
    Recorder rec;
    Scheduler scheduler(model, {.max_batch_tokens = 8, .prefill_chunk = 256});
    const auto a = make_prompt(4, 4);
    const auto b = make_prompt(30, 5);
    const uint64_t ida = *scheduler.submit(greedy_request(a, 10, rec));
    ASSERT_TRUE(scheduler.step());  // a's prefill
    const uint64_t idb = *scheduler.submit(greedy_request(b, 3, rec));
    ASSERT_TRUE(scheduler.step());
    const auto& step = model.steps().back();
    ASSERT_EQ(step.size(), 2u);
    EXPECT_EQ(step[0].num_tokens, 1);  // a's decode
    EXPECT_EQ(step[0].n_logits, 1);
    EXPECT_EQ(step[1].num_tokens, 7);  // b's first chunk: the budget less the decode
    EXPECT_EQ(step[1].n_logits, 0);
    run_to_idle(scheduler);
    EXPECT_EQ(rec.get(ida).tokens, model.reference_greedy(a, 10));
    EXPECT_EQ(rec.get(idb).tokens, model.reference_greedy(b, 3));
    EXPECT_EQ(model.corruptions(), 0);
}

TEST(Scheduler, PrefixCacheHitSkipsComputeAndChangesNothing) {
    ScriptedModel model;
    Recorder rec;
    Scheduler scheduler(model);
    const auto shared = make_prompt(20, 6);
    const uint64_t first = *scheduler.submit(greedy_request(shared, 5, rec));
    run_to_idle(scheduler);
    const int64_t forwarded_before = model.tokens_forwarded();

    auto prompt = shared;
    prompt.push_back(9);
    prompt.push_back(11);
    const uint64_t second = *scheduler.submit(greedy_request(prompt, 5, rec));
    run_to_idle(scheduler);
    EXPECT_EQ(rec.get(first).tokens, model.reference_greedy(shared, 5));
    EXPECT_EQ(rec.get(second).tokens, model.reference_greedy(prompt, 5));
    EXPECT_EQ(rec.get(second).last.cached_prompt_tokens, 20);
    // 2 uncached prompt tokens, then 4 decodes.
    EXPECT_EQ(model.tokens_forwarded() - forwarded_before, 2 + 4);
    EXPECT_EQ(model.corruptions(), 0);

    // The same prompt again: its last block holds the last token, which must be computed: 16 cached, 4 computed.
    const int64_t before_third = model.tokens_forwarded();
    const uint64_t third = *scheduler.submit(greedy_request(shared, 1, rec));
    run_to_idle(scheduler);
    EXPECT_EQ(rec.get(third).tokens, model.reference_greedy(shared, 1));
    EXPECT_EQ(rec.get(third).last.cached_prompt_tokens, 16);
    EXPECT_EQ(model.tokens_forwarded() - before_third, 4);
    const SchedulerStats s = scheduler.stats();
    EXPECT_EQ(s.prefix_queried_tokens, 20u + 22u + 20u);
    EXPECT_EQ(s.prefix_hit_tokens, 0u + 20u + 16u);
    EXPECT_EQ(s.blocks_used, 0);
    EXPECT_GT(s.blocks_cached, 0);
}

TEST(Scheduler, PrefixCacheOffComputesEverything) {
    ScriptedModel model;
    Recorder rec;
    Scheduler scheduler(model, {.enable_prefix_cache = false});
    const auto prompt = make_prompt(20, 6);
    (void)*scheduler.submit(greedy_request(prompt, 1, rec));
    run_to_idle(scheduler);
    const uint64_t again = *scheduler.submit(greedy_request(prompt, 1, rec));
    run_to_idle(scheduler);
    EXPECT_EQ(rec.get(again).last.cached_prompt_tokens, 0);
    EXPECT_EQ(model.tokens_forwarded(), 40);
    EXPECT_EQ(scheduler.stats().blocks_cached, 0);
}

TEST(Scheduler, ConcurrentRequestsShareCachedBlocks) {
    ScriptedModel model;
    Recorder rec;
    Scheduler scheduler(model);
    const auto system = make_prompt(16, 7);
    (void)*scheduler.submit(greedy_request(system, 1, rec));  // warms the cache with four blocks
    run_to_idle(scheduler);
    std::vector<std::pair<uint64_t, std::vector<int32_t>>> expected;
    for (int i = 0; i < 4; ++i) {
        auto prompt = system;
        for (int j = 0; j <= i; ++j)
            prompt.push_back(1 + i + j);
        const uint64_t id = *scheduler.submit(greedy_request(prompt, 8, rec));
        expected.emplace_back(id, model.reference_greedy(prompt, 8));
    }
    ASSERT_TRUE(scheduler.step());
    // Four sequences hold the same four cached blocks plus one block of their own each.
    EXPECT_EQ(scheduler.stats().blocks_used, 4 + 4);
    run_to_idle(scheduler);
    for (const auto& [id, tokens] : expected) {
        EXPECT_EQ(rec.get(id).tokens, tokens);
        EXPECT_EQ(rec.get(id).last.cached_prompt_tokens, 16);
    }
    EXPECT_EQ(model.corruptions(), 0);
    EXPECT_EQ(scheduler.stats().blocks_used, 0);
}

TEST(Scheduler, CacheEvictionUnderPressureKeepsOutputsRight) {
    ScriptedModel model({.num_blocks = 12});
    Recorder rec;
    Scheduler scheduler(model);
    std::vector<std::pair<uint64_t, std::vector<int32_t>>> expected;
    for (int round = 0; round < 3; ++round) {
        for (int i = 0; i < 6; ++i) {
            // Prompts share prefixes of different lengths with each other and the rounds before.
            auto prompt = make_prompt(8 + i, static_cast<uint64_t>(i % 3));
            const uint64_t id = *scheduler.submit(greedy_request(prompt, 6, rec));
            expected.emplace_back(id, model.reference_greedy(prompt, 6));
        }
        run_to_idle(scheduler);
    }
    for (const auto& [id, tokens] : expected)
        EXPECT_EQ(rec.get(id).tokens, tokens) << "request " << id;
    EXPECT_EQ(model.corruptions(), 0);
    const SchedulerStats s = scheduler.stats();
    EXPECT_GT(s.prefix_hit_tokens, 0u);
    EXPECT_EQ(s.blocks_used, 0);
    EXPECT_LE(s.blocks_cached, 12);
}

TEST(Scheduler, ContextLimitEndsWithLength) {
    ScriptedModel model({.max_context = 32});
    Recorder rec;
    Scheduler scheduler(model);
    const auto prompt = make_prompt(28, 8);
    const uint64_t id = *scheduler.submit(greedy_request(prompt, 100, rec));
    run_to_idle(scheduler);
    EXPECT_EQ(rec.get(id).tokens, model.reference_greedy(prompt, 4));
    EXPECT_EQ(rec.get(id).reason, FinishReason::kLength);
    EXPECT_EQ(model.corruptions(), 0);
}

TEST(Scheduler, ASequenceThatOutgrowsTheWholeCacheEndsWithLength) {
    ScriptedModel model({.num_blocks = 3});
    Recorder rec;
    Scheduler scheduler(model);
    const auto prompt = make_prompt(6, 9);
    const uint64_t id = *scheduler.submit(greedy_request(prompt, 100, rec));
    run_to_idle(scheduler);
    // 12 positions fit in 3 blocks: 6 prompt tokens and 6 computed outputs, the 7th output sampled but not computed.
    EXPECT_EQ(rec.get(id).tokens, model.reference_greedy(prompt, 7));
    EXPECT_EQ(rec.get(id).reason, FinishReason::kLength);
    EXPECT_EQ(scheduler.stats().blocks_used, 0);
}

TEST(Scheduler, SubmitValidatesPrecisely) {
    ScriptedModel model({.vocab = 64, .block_size = 4, .num_blocks = 8, .max_context = 64});
    Recorder rec;
    Scheduler scheduler(model);
    auto check = [&](GenerationRequest r, const std::string& message) {
        auto result = scheduler.submit(std::move(r));
        ASSERT_FALSE(result.is_ok());
        EXPECT_TRUE(result.status().is_invalid_argument());
        EXPECT_EQ(result.status().message(), message);
    };
    check(greedy_request({}, 1, rec), "the prompt is empty");
    check(greedy_request(make_prompt(64, 1), 1, rec),
          "the prompt has 64 tokens; the model's context is 64 and must keep room for one more");
    check(greedy_request(make_prompt(33, 1), 1, rec),
          "the prompt has 33 tokens, which need 9 KV blocks of 4; the cache has 8");
    check(greedy_request({1, 2, 64}, 1, rec), "prompt token 2 is 64; the vocabulary has ids 0..63");
    check(greedy_request({1, -1}, 1, rec), "prompt token 1 is -1; the vocabulary has ids 0..63");
    check(greedy_request({1}, 0, rec), "max_tokens is 0; it must be at least 1");
    EXPECT_TRUE(scheduler.submit(greedy_request(make_prompt(32, 1), 1, rec)).is_ok());
}

TEST(Scheduler, QueueLimit) {
    ScriptedModel model;
    Recorder rec;
    Scheduler scheduler(model, {.max_waiting = 2});
    EXPECT_TRUE(scheduler.submit(greedy_request({1, 2}, 1, rec)).is_ok());
    EXPECT_TRUE(scheduler.submit(greedy_request({1, 2}, 1, rec)).is_ok());
    auto third = scheduler.submit(greedy_request({1, 2}, 1, rec));
    ASSERT_FALSE(third.is_ok());
    EXPECT_TRUE(third.status().is_resource_exhausted());
    EXPECT_EQ(third.status().message(), "2 requests are already waiting");
    EXPECT_EQ(scheduler.stats().waiting, 2);
    run_to_idle(scheduler);
    EXPECT_TRUE(scheduler.submit(greedy_request({1, 2}, 1, rec)).is_ok());
}

TEST(Scheduler, CancelFinishesAndFreesBlocks) {
    ScriptedModel model;
    Recorder rec;
    Scheduler scheduler(model);
    const uint64_t running = *scheduler.submit(greedy_request(make_prompt(9, 1), 50, rec));
    ASSERT_TRUE(scheduler.step());
    ASSERT_TRUE(scheduler.step());
    EXPECT_GT(scheduler.stats().blocks_used, 0);
    const uint64_t queued = *scheduler.submit(greedy_request(make_prompt(9, 2), 50, rec));
    scheduler.cancel(running);
    scheduler.cancel(queued);
    scheduler.cancel(12345);  // unknown: ignored
    ASSERT_TRUE(scheduler.step());
    EXPECT_EQ(rec.get(running).reason, FinishReason::kCancelled);
    EXPECT_EQ(rec.get(running).tokens.size(), 2u);
    EXPECT_EQ(rec.get(queued).reason, FinishReason::kCancelled);
    EXPECT_TRUE(rec.get(queued).tokens.empty());
    EXPECT_FALSE(scheduler.step());
    const SchedulerStats s = scheduler.stats();
    EXPECT_EQ(s.blocks_used, 0);
    EXPECT_EQ(s.running, 0);
}

TEST(Scheduler, DeadlinesFinishWaitingAndRunningRequests) {
    using Clock = std::chrono::steady_clock;
    Clock::time_point now{std::chrono::seconds(100)};
    ScriptedModel model;
    Recorder rec;
    Scheduler scheduler(model, {.max_running = 1, .clock = [&] { return now; }});
    auto running = greedy_request(make_prompt(5, 1), 50, rec);
    running.deadline = now + std::chrono::seconds(2);
    auto waiting = greedy_request(make_prompt(5, 2), 50, rec);
    waiting.deadline = now + std::chrono::seconds(1);
    const uint64_t a = *scheduler.submit(std::move(running));
    const uint64_t b = *scheduler.submit(std::move(waiting));
    ASSERT_TRUE(scheduler.step());
    ASSERT_TRUE(scheduler.step());
    now += std::chrono::milliseconds(1500);
    ASSERT_TRUE(scheduler.step());
    EXPECT_EQ(rec.get(b).reason, FinishReason::kDeadline);
    EXPECT_DOUBLE_EQ(rec.get(b).last.queue_seconds, 1.5);
    EXPECT_FALSE(rec.get(a).finished);
    now += std::chrono::seconds(1);
    ASSERT_TRUE(scheduler.step());
    EXPECT_EQ(rec.get(a).reason, FinishReason::kDeadline);
    EXPECT_EQ(rec.get(a).tokens.size(), 3u);
    EXPECT_DOUBLE_EQ(rec.get(a).last.queue_seconds, 0.0);
    EXPECT_DOUBLE_EQ(rec.get(a).last.ttft_seconds, 0.0);
    EXPECT_EQ(scheduler.stats().blocks_used, 0);
}

TEST(Scheduler, TimingFieldsFollowTheClock) {
    using Clock = std::chrono::steady_clock;
    Clock::time_point now{std::chrono::seconds(5)};
    ScriptedModel model;
    Recorder rec;
    Scheduler scheduler(model, {.max_running = 1, .clock = [&] { return now; }});
    const uint64_t a = *scheduler.submit(greedy_request(make_prompt(5, 1), 2, rec));
    const uint64_t b = *scheduler.submit(greedy_request(make_prompt(5, 2), 1, rec));
    now += std::chrono::milliseconds(250);
    run_to_idle(scheduler);  // a runs two steps at t = 5.25, then b
    EXPECT_DOUBLE_EQ(rec.get(a).last.queue_seconds, 0.25);
    EXPECT_DOUBLE_EQ(rec.get(a).last.ttft_seconds, 0.25);
    EXPECT_DOUBLE_EQ(rec.get(b).last.queue_seconds, 0.25);
}

TEST(Scheduler, HigherPriorityIsAdmittedFirst) {
    ScriptedModel model;
    Recorder rec;
    Scheduler scheduler(model, {.max_running = 1});
    const uint64_t low = *scheduler.submit(greedy_request(make_prompt(5, 1), 2, rec, 0));
    const uint64_t mid = *scheduler.submit(greedy_request(make_prompt(5, 2), 2, rec, 1));
    const uint64_t high = *scheduler.submit(greedy_request(make_prompt(5, 3), 2, rec, 5));
    const uint64_t mid2 = *scheduler.submit(greedy_request(make_prompt(5, 4), 2, rec, 1));
    run_to_idle(scheduler);
    EXPECT_EQ(rec.finish_order(), (std::vector<uint64_t>{high, mid, mid2, low}));
}

TEST(Scheduler, StepThreadServesRequests) {
    ScriptedModel model;
    Recorder rec;
    Scheduler scheduler(model);
    scheduler.start();
    std::vector<std::pair<uint64_t, std::vector<int32_t>>> expected;
    for (int i = 0; i < 6; ++i) {
        const auto prompt = make_prompt(4 + i, 20 + static_cast<uint64_t>(i));
        const uint64_t id = *scheduler.submit(greedy_request(prompt, 5, rec));
        expected.emplace_back(id, model.reference_greedy(prompt, 5));
    }
    rec.wait_finished(6);
    for (const auto& [id, tokens] : expected)
        EXPECT_EQ(rec.get(id).tokens, tokens);
    scheduler.stop();
    EXPECT_EQ(scheduler.stats().blocks_used, 0);
    auto late = scheduler.submit(greedy_request({1}, 1, rec));
    ASSERT_FALSE(late.is_ok());
    EXPECT_TRUE(late.status().is_unavailable());
}

TEST(Scheduler, StopCancelsRunningWaitingAndJustSubmittedRequests) {
    ScriptedModel model;
    Recorder rec;
    Scheduler scheduler(model, {.max_running = 1});
    const uint64_t running = *scheduler.submit(greedy_request(make_prompt(5, 1), 50, rec));
    const uint64_t waiting = *scheduler.submit(greedy_request(make_prompt(5, 2), 50, rec));
    ASSERT_TRUE(scheduler.step());
    const uint64_t fresh = *scheduler.submit(greedy_request(make_prompt(5, 3), 50, rec));
    scheduler.stop();
    EXPECT_EQ(rec.finish_order(), (std::vector<uint64_t>{running, waiting, fresh}));
    for (uint64_t id : {running, waiting, fresh})
        EXPECT_EQ(rec.get(id).reason, FinishReason::kCancelled);
    EXPECT_EQ(rec.get(running).tokens.size(), 1u);
    const SchedulerStats s = scheduler.stats();
    EXPECT_EQ(s.blocks_used, 0);
    EXPECT_EQ(s.running + s.waiting + s.swapped, 0);
}

TEST(Scheduler, CallbacksMaySubmitAndCancel) {
    ScriptedModel model;
    Recorder rec;
    Scheduler scheduler(model);
    uint64_t follow_up = 0;
    auto inner = rec.callback();
    GenerationRequest first = greedy_request(make_prompt(6, 1), 2, rec);
    first.on_event = [&](const GenerationEvent& e) {
        inner(e);
        if (e.finished) follow_up = *scheduler.submit(greedy_request(make_prompt(6, 2), 3, rec));
    };
    const uint64_t id = *scheduler.submit(std::move(first));
    run_to_idle(scheduler);
    EXPECT_EQ(rec.get(id).tokens.size(), 2u);
    ASSERT_NE(follow_up, 0u);
    EXPECT_EQ(rec.get(follow_up).tokens, model.reference_greedy(make_prompt(6, 2), 3));
}

}  // namespace
}  // namespace slipstream::agent::infer
