// Micro-benchmarks for PrefixChecker: a copy and a short token fed, as a constrained decoder tries each candidate.
#include <benchmark/benchmark.h>

#include "agent/structured/prefix_checker.h"

namespace slipstream::agent::structured {
namespace {

const char* const kSchema = R"({"type":"object","required":["name","age","color","tags"],"additionalProperties":false,
  "properties":{"name":{"type":"string","maxLength":40},"age":{"type":"integer"},
  "color":{"enum":["red","green","blue"]},"tags":{"type":"array","items":{"type":"object",
  "properties":{"k":{"type":"string"},"v":{"type":"number"}},"required":["k"]}}}})";

// A checker partway through a document, at `prefix`'s end.
PrefixChecker at(const char* prefix) {
    auto schema = CompiledSchema::create(kSchema);
    PrefixChecker p(*schema);
    p.feed(prefix);
    return p;
}

void fork_and_feed(benchmark::State& state, const char* prefix, const char* token, bool assign) {
    const PrefixChecker base = at(prefix);
    PrefixChecker scratch = base;
    for (auto _ : state) {
        if (assign) {
            scratch = base;
            benchmark::DoNotOptimize(scratch.feed(token));
        } else {
            PrefixChecker fork(base);
            benchmark::DoNotOptimize(fork.feed(token));
        }
    }
}

constexpr const char* kInString = R"({"name":"Ada Love)";
constexpr const char* kInArray = R"({"name":"Ada","age":36,"color":"red","tags":[{"k":"x","v":1},{"k":"y")";

void BM_CopyFeed_InString(benchmark::State& s) {
    fork_and_feed(s, kInString, "lace", false);
}
void BM_AssignFeed_InString(benchmark::State& s) {
    fork_and_feed(s, kInString, "lace", true);
}
void BM_AssignFeed_Key(benchmark::State& s) {
    fork_and_feed(s, R"({"name":"Ada",")", "col", true);
}
void BM_AssignFeed_Refused(benchmark::State& s) {
    fork_and_feed(s, R"({"name":"Ada",")", "zz", true);
}
void BM_AssignFeed_Nested(benchmark::State& s) {
    fork_and_feed(s, kInArray, ",\"v\":", true);
}
void BM_AssignFeed_Closes(benchmark::State& s) {
    fork_and_feed(s, kInArray, "}]}", true);
}
BENCHMARK(BM_CopyFeed_InString);
BENCHMARK(BM_AssignFeed_InString);
BENCHMARK(BM_AssignFeed_Key);
BENCHMARK(BM_AssignFeed_Refused);
BENCHMARK(BM_AssignFeed_Nested);
BENCHMARK(BM_AssignFeed_Closes);

}  // namespace
}  // namespace slipstream::agent::structured

BENCHMARK_MAIN();
