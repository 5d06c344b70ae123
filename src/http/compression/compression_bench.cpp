// Micro-benchmarks: one-shot compression of a JSON body per coding, decoding, per-chunk stream flushes,
// and Accept-Encoding negotiation.
#include <benchmark/benchmark.h>

#include <string>

#include "http/compression/accept_encoding.h"
#include "http/compression/decoder.h"
#include "http/compression/encoder.h"

namespace {

using namespace slipstream::http::compression;

constexpr Encoding kCodings[] = {Encoding::kGzip, Encoding::kBrotli, Encoding::kZstd};

std::string json_body(std::size_t n) {
    std::string s = "[";
    for (std::size_t i = 0; s.size() < n; ++i)
        s += R"({"id":)" + std::to_string(i) + R"(,"name":"user )" + std::to_string(i * 31 % 997) +
             R"(","active":true,"score":)" + std::to_string(i * 17 % 101) + "},";
    s.back() = ']';
    return s;
}

void BM_Compress(benchmark::State& state) {
    Encoding e = kCodings[state.range(0)];
    std::string body = json_body(static_cast<std::size_t>(state.range(1)));
    auto encoder = Encoder::create(e, level_range(e).fallback).value();
    std::string out;
    for (auto _ : state) {
        out.clear();
        benchmark::DoNotOptimize(encoder->compress(body, out).is_ok());
    }
    state.SetLabel(std::string(encoding_token(e)) + " ratio " + std::to_string(body.size() / out.size()));
    state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * body.size()));
}
BENCHMARK(BM_Compress)->ArgsProduct({{0, 1, 2}, {2 * 1024, 64 * 1024}});

void BM_Decode(benchmark::State& state) {
    Encoding e = kCodings[state.range(0)];
    std::string body = json_body(64 * 1024);
    std::string packed = compress(e, body, level_range(e).fallback).value();
    DecodeLimits limits{.max_output = 1 << 20, .max_ratio = 100};
    for (auto _ : state)
        benchmark::DoNotOptimize(decode(e, packed, limits).is_ok());
    state.SetLabel(std::string(encoding_token(e)));
    state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * body.size()));
}
BENCHMARK(BM_Decode)->DenseRange(0, 2);

// One SSE event per chunk, flushed: the cost a compressed event stream pays per event.
void BM_StreamChunk(benchmark::State& state) {
    Encoding e = kCodings[state.range(0)];
    auto encoder = Encoder::create(e, level_range(e).fallback).value();
    const std::string event = "event: tick\nid: 12345\ndata: {\"tick\":12345,\"price\":101.25,\"symbol\":\"ABC\"}\n\n";
    std::string out;
    std::size_t wire = 0, n = 0;
    for (auto _ : state) {
        out.clear();
        benchmark::DoNotOptimize(encoder->write_chunk(event, out).is_ok());
        wire += out.size();
        ++n;
    }
    state.SetLabel(std::string(encoding_token(e)) + " bytes/event " + std::to_string(wire / (n ? n : 1)));
}
BENCHMARK(BM_StreamChunk)->DenseRange(0, 2);

void BM_AcceptEncoding(benchmark::State& state) {
    const Encoding offered[] = {Encoding::kZstd, Encoding::kBrotli, Encoding::kGzip};
    for (auto _ : state) {
        AcceptEncoding ae;
        ae.add("gzip, deflate, br, zstd");
        benchmark::DoNotOptimize(ae.choose(offered));
    }
}
BENCHMARK(BM_AcceptEncoding);

}  // namespace

BENCHMARK_MAIN();
