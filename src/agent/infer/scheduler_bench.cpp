// Scheduler overhead per step with a model that costs nothing: N sequences decoding, each replaced when done.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <memory>

#include "agent/infer/scheduler.h"

namespace slipstream::agent::infer {
namespace {

// Logits that make token (last + 1) % vocab the argmax: no work beyond writing the rows.
class NullModel final : public BatchModel {
  public:
    explicit NullModel(int64_t num_blocks) : num_blocks_(num_blocks) {}
    int64_t vocab_size() const override { return kVocab; }
    int64_t block_size() const override { return 16; }
    int64_t num_blocks() const override { return num_blocks_; }
    int64_t max_context() const override { return 4096; }
    void forward(std::span<const BatchEntry> batch, float* logits) override {
        for (const BatchEntry& e : batch) {
            for (int64_t r = 0; r < e.n_logits; ++r) {
                const int32_t last = e.tokens[e.tokens.size() - static_cast<size_t>(e.n_logits - r)];
                std::fill(logits, logits + kVocab, 0.0f);
                logits[(last + 1) % kVocab] = 1.0f;
                logits += kVocab;
            }
        }
    }
    void copy_block(int32_t, int32_t) override {}
    void swap_out(int32_t, std::vector<float>& out) override { out.assign(1, 0.0f); }
    void swap_in(int32_t, const std::vector<float>&) override {}

  private:
    static constexpr int64_t kVocab = 32;
    int64_t num_blocks_;
};

struct Crowd {
    Scheduler* scheduler = nullptr;
    uint64_t next_prompt = 0;
    int64_t finished = 0;

    GenerationRequest request() {
        GenerationRequest r;
        // 32-token prompts: a 16-token prefix shared by all, then 16 of their own.
        for (int32_t i = 0; i < 16; ++i)
            r.prompt.push_back(i);
        const uint64_t k = next_prompt++;
        for (int32_t i = 0; i < 16; ++i)
            r.prompt.push_back(static_cast<int32_t>((k * 7 + i * 13) % 32));
        r.sampling.temperature = 0.0f;
        r.sampling.max_tokens = 256;
        r.on_event = [this](const GenerationEvent& e) {
            if (!e.finished || e.reason == FinishReason::kCancelled) return;
            ++finished;
            (void)*scheduler->submit(request());
        };
        return r;
    }
};

void BM_SchedulerStep(benchmark::State& state) {
    const int64_t n = state.range(0);
    const bool cache = state.range(1) != 0;
    const int32_t spec = static_cast<int32_t>(state.range(2));
    NullModel model(n * 20 + 64);
    Scheduler scheduler(model, {.max_batch_tokens = std::max<int64_t>(512, n * (spec + 1) + 32),
                                .max_running = n,
                                .enable_prefix_cache = cache,
                                .speculative_ngram = spec});
    Crowd crowd;
    crowd.scheduler = &scheduler;
    for (int64_t i = 0; i < n; ++i)
        (void)*scheduler.submit(crowd.request());
    for (int i = 0; i < 600; ++i)
        scheduler.step();  // past the first wave of prefills into the steady state
    const SchedulerStats before = scheduler.stats();
    for (auto _ : state)
        benchmark::DoNotOptimize(scheduler.step());
    const SchedulerStats after = scheduler.stats();
    const double steps = static_cast<double>(after.steps - before.steps);
    state.counters["tokens/step"] = static_cast<double>(after.tokens_generated - before.tokens_generated) / steps;
    state.counters["ns/token"] =
        benchmark::Counter(static_cast<double>(after.tokens_generated - before.tokens_generated),
                           benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
    state.counters["running"] = static_cast<double>(after.running);
    state.SetItemsProcessed(static_cast<int64_t>(after.tokens_generated - before.tokens_generated));
}

BENCHMARK(BM_SchedulerStep)
    ->ArgNames({"running", "cache", "spec"})
    ->Args({1, 1, 0})
    ->Args({8, 1, 0})
    ->Args({32, 1, 0})
    ->Args({256, 1, 0})
    ->Args({256, 0, 0})
    ->Args({32, 1, 4})
    ->Args({256, 1, 4});

}  // namespace
}  // namespace slipstream::agent::infer

BENCHMARK_MAIN();
