// Benchmarks: matmul per weight type at batch 1 and 16 on a 2048x2048 matrix, and parallel_for overhead.
#include <benchmark/benchmark.h>

#include <cstring>
#include <random>
#include <vector>

#include "agent/infer/kernels.h"
#include "agent/infer/thread_pool.h"

namespace slipstream::agent::infer::kernels {
namespace {

constexpr int64_t kDim = 2048;

ThreadPool& pool() {
    static ThreadPool p;
    return p;
}

std::vector<uint8_t> weights(GgmlType type) {
    std::vector<uint8_t> data(ggml_row_bytes(type, kDim) * kDim);
    std::mt19937 rng(1);
    std::uniform_real_distribution<float> val(-1.0f, 1.0f);
    const std::size_t block = ggml_block_bytes(type);
    for (std::size_t off = 0; off < data.size(); off += block) {
        const float f = val(rng);
        switch (type) {
            case GgmlType::kF32:
                std::memcpy(&data[off], &f, 4);
                break;
            case GgmlType::kF16: {
                const uint16_t h = fp32_to_fp16(f);
                std::memcpy(&data[off], &h, 2);
                break;
            }
            case GgmlType::kBF16: {
                const uint16_t h = fp32_to_bf16(f);
                std::memcpy(&data[off], &h, 2);
                break;
            }
            default: {
                const uint16_t d = fp32_to_fp16(0.01f);
                std::memcpy(&data[off], &d, 2);
                for (std::size_t j = 2; j < block; ++j)
                    data[off + j] = static_cast<uint8_t>(rng());
            }
        }
    }
    return data;
}

// Arg 0: weight type; arg 1: batch; arg 2: 0 widest SIMD path, 1 avx2, 2 portable.
void BM_Matmul(benchmark::State& state) {
    const auto type = static_cast<GgmlType>(state.range(0));
    const int64_t batch = state.range(1);
    const char* paths[] = {"avx512", "avx2", "portable"};
    const char* path = paths[state.range(2)];
    if (state.range(2) == 0 && !simd_path_available(path)) path = "avx2";
    if (!use_simd_path(path)) {
        state.SkipWithError("SIMD path not available");
        return;
    }
    const auto data = weights(type);
    const WeightMatrix w{type, data.data(), kDim, kDim};
    std::vector<float> x(static_cast<std::size_t>(batch * kDim), 0.5f), y(static_cast<std::size_t>(batch * kDim));
    for (auto _ : state) {
        matmul(w, x.data(), batch, y.data(), pool());
        benchmark::DoNotOptimize(y.data());
    }
    state.SetLabel(std::string(ggml_type_name(static_cast<uint32_t>(type))) + " " + simd_path() +
                   " threads=" + std::to_string(pool().size()));
    state.counters["GFLOP/s"] = benchmark::Counter(2.0 * kDim * kDim * batch * state.iterations(),
                                                   benchmark::Counter::kIsRate, benchmark::Counter::kIs1000);
    state.counters["weight_GB/s"] = benchmark::Counter(static_cast<double>(data.size()) * state.iterations(),
                                                       benchmark::Counter::kIsRate, benchmark::Counter::kIs1000);
}

void matmul_args(benchmark::internal::Benchmark* b) {
    for (int path : {0, 1, 2}) {
        for (int type : {0, 1, 30, 8, 2}) {
            for (int batch : {1, 16}) {
                if (path == 2 && batch == 16) continue;  // portable at batch 16 takes seconds per iteration
                b->Args({type, batch, path});
            }
        }
    }
}
BENCHMARK(BM_Matmul)->Apply(matmul_args)->Unit(benchmark::kMicrosecond)->UseRealTime();

// One parallel_for of `range(0)` trivial items on the default pool: the fixed cost a kernel pays per call.
void BM_ParallelForOverhead(benchmark::State& state) {
    const int64_t n = state.range(0);
    std::vector<int64_t> sink(64 * 64);
    for (auto _ : state) {
        pool().parallel_for(n, [&](int64_t b, int64_t e) { sink[static_cast<std::size_t>(b % 64) * 64] += e - b; });
    }
    benchmark::DoNotOptimize(sink.data());
    state.SetLabel("threads=" + std::to_string(pool().size()));
}
BENCHMARK(BM_ParallelForOverhead)->Arg(2)->Arg(64)->Unit(benchmark::kNanosecond)->UseRealTime();

}  // namespace
}  // namespace slipstream::agent::infer::kernels

BENCHMARK_MAIN();
