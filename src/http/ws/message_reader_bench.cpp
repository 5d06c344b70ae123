// Micro-benchmarks: MessageReader throughput for small masked text frames and one large binary frame.
#include <benchmark/benchmark.h>

#include "http/ws/message_reader.h"
#include "http/ws/test_frames.h"

namespace slipstream::http::ws {
namespace {

void BM_SmallTextFrames(benchmark::State& state) {
    std::string input;
    for (int i = 0; i < 100; ++i)
        input += testing::client_frame(Opcode::kText, "{\"type\":\"ping\",\"seq\":12345}");
    MessageReader r({});
    for (auto _ : state) {
        std::string_view rest = input;
        while (!rest.empty()) {
            MessageReader::Event e = r.read(rest);
            rest.remove_prefix(e.consumed);
            benchmark::DoNotOptimize(e.data.data());
        }
    }
    state.SetItemsProcessed(state.iterations() * 100);
    state.SetBytesProcessed(state.iterations() * static_cast<std::int64_t>(input.size()));
}
BENCHMARK(BM_SmallTextFrames);

void BM_LargeBinaryFrame(benchmark::State& state) {
    std::string input = testing::client_frame(Opcode::kBinary, std::string(512 * 1024, 'x'));
    MessageReader r({});
    for (auto _ : state) {
        MessageReader::Event e = r.read(input);
        benchmark::DoNotOptimize(e.data.data());
    }
    state.SetBytesProcessed(state.iterations() * static_cast<std::int64_t>(input.size()));
}
BENCHMARK(BM_LargeBinaryFrame);

}  // namespace
}  // namespace slipstream::http::ws

BENCHMARK_MAIN();
