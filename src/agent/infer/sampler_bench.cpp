// Micro-benchmarks for Sampler::sample over realistic vocabulary sizes: greedy, top-p 0.9, top-k 40.
#include <benchmark/benchmark.h>

#include <random>

#include "agent/infer/sampler.h"

namespace slipstream::agent::infer {
namespace {

// Logits shaped like a language model's: a normal bulk (sd 2) and a few tokens well above it.
std::vector<float> make_logits(size_t vocab) {
    std::mt19937_64 rng(1);
    std::normal_distribution<float> bulk(0.0f, 2.0f);
    std::vector<float> logits(vocab);
    for (float& l : logits)
        l = bulk(rng);
    for (size_t i = 0; i < 8; ++i)
        logits[(i * 7919) % vocab] = 12.0f - static_cast<float>(i);
    return logits;
}

void run(benchmark::State& state, SamplingParams params) {
    const std::vector<float> logits = make_logits(static_cast<size_t>(state.range(0)));
    params.seed = 7;
    params.has_seed = true;
    Sampler sampler(params, {}, 0);
    for (auto _ : state)
        benchmark::DoNotOptimize(sampler.sample(logits).token);
}

void BM_Greedy(benchmark::State& state) {
    SamplingParams p;
    p.temperature = 0.0f;
    run(state, p);
}

void BM_GreedyLogprobs(benchmark::State& state) {
    SamplingParams p;
    p.temperature = 0.0f;
    p.top_logprobs = 5;
    run(state, p);
}

void BM_Full(benchmark::State& state) {
    run(state, SamplingParams{});
}

void BM_TopP(benchmark::State& state) {
    SamplingParams p;
    p.temperature = 0.8f;
    p.top_p = 0.9f;
    run(state, p);
}

void BM_TopK(benchmark::State& state) {
    SamplingParams p;
    p.temperature = 0.8f;
    p.top_k = 40;
    run(state, p);
}

void BM_TopPPenalties(benchmark::State& state) {
    SamplingParams p;
    p.temperature = 0.8f;
    p.top_p = 0.9f;
    p.repetition_penalty = 1.1f;
    p.frequency_penalty = 0.2f;
    const std::vector<float> logits = make_logits(static_cast<size_t>(state.range(0)));
    std::vector<int32_t> prompt;
    for (int32_t i = 0; i < 2000; ++i)
        prompt.push_back((i * 104729) % static_cast<int32_t>(logits.size()));
    Sampler sampler(p, prompt, 7);
    for (int32_t i = 0; i < 200; ++i)
        sampler.accept(i * 31);
    for (auto _ : state)
        benchmark::DoNotOptimize(sampler.sample(logits).token);
}

BENCHMARK(BM_Greedy)->Arg(32000)->Arg(152000);
BENCHMARK(BM_GreedyLogprobs)->Arg(32000)->Arg(152000);
BENCHMARK(BM_Full)->Arg(32000)->Arg(152000);
BENCHMARK(BM_TopP)->Arg(32000)->Arg(152000);
BENCHMARK(BM_TopK)->Arg(32000)->Arg(152000);
BENCHMARK(BM_TopPPenalties)->Arg(32000)->Arg(152000);

}  // namespace
}  // namespace slipstream::agent::infer

BENCHMARK_MAIN();
