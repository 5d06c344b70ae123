// Micro-benchmarks for JsonConstraint: allows() of one token and the full mask over 32k- and 152k-token
// vocabularies (synthetic, shaped like byte-level BPE: words with and without a leading space, punctuation runs,
// digits, raw bytes) at a key, inside a free string, and at a value.
#include <benchmark/benchmark.h>

#include <random>
#include <string>
#include <vector>

#include "agent/infer/json_constraint.h"

namespace slipstream::agent::infer {
namespace {

std::shared_ptr<const TokenBytes> make_vocab(size_t n) {
    std::mt19937_64 rng(3);
    std::vector<std::string> v;
    for (int b = 0; b < 256; ++b)
        v.emplace_back(1, static_cast<char>(b));
    const std::string letters = "etaoinshrdlucmfwypvbgkjqxz";
    const std::string punct = "{}[]\":,. \n-_'";
    while (v.size() < n) {
        std::string t;
        const auto kind = rng() % 10;
        if (kind < 7) {  // a word piece, often with a leading space
            if (rng() % 2 == 0) t += ' ';
            const size_t len = 1 + rng() % 9;
            for (size_t i = 0; i < len; ++i)
                t += letters[std::min<size_t>(rng() % letters.size(), rng() % letters.size())];
        } else if (kind < 9) {  // punctuation runs ("\":", "},\n", ...)
            const size_t len = 1 + rng() % 4;
            for (size_t i = 0; i < len; ++i)
                t += punct[rng() % punct.size()];
        } else {
            t = std::to_string(rng() % 1000);
        }
        v.push_back(std::move(t));
    }
    return std::make_shared<const TokenBytes>(std::move(v));
}

const char* const kSchema = R"({"type":"object","required":["name","age","color"],"additionalProperties":false,
  "properties":{"name":{"type":"string"},"age":{"type":"integer"},"color":{"enum":["red","green","blue"]}}})";

struct At {
    const char* name;
    const char* prefix;
};
constexpr At kStates[] = {{"key", R"({")"}, {"in_string", R"({"name":"Ada Lo)"}, {"value", R"({"name":"Ada","age":)"}};

JsonConstraint at(const std::shared_ptr<const TokenBytes>& vocab, const char* prefix) {
    auto schema = *structured::CompiledSchema::create(kSchema);
    JsonConstraint c(vocab, schema);
    for (const char* p = prefix; *p != '\0'; ++p)
        c.accept(static_cast<int32_t>(static_cast<unsigned char>(*p)));  // ids 0..255 are the bytes
    return c;
}

void BM_FullMask(benchmark::State& state) {
    const auto vocab = make_vocab(static_cast<size_t>(state.range(0)));
    JsonConstraint c = at(vocab, kStates[state.range(1)].prefix);
    std::vector<uint8_t> mask(static_cast<size_t>(vocab->size()));
    size_t allowed = 0;
    for (auto _ : state) {
        c.fill_allowed(mask);
        benchmark::DoNotOptimize(mask.data());
    }
    for (uint8_t m : mask)
        allowed += m;
    state.SetLabel(std::string(kStates[state.range(1)].name) + ", " + std::to_string(allowed) + " allowed");
}
BENCHMARK(BM_FullMask)->ArgsProduct({{32000, 152000}, {0, 1, 2}})->Unit(benchmark::kMillisecond);

void BM_AllowsOneToken(benchmark::State& state) {
    const auto vocab = make_vocab(32000);
    JsonConstraint c = at(vocab, kStates[1].prefix);
    const auto e = static_cast<int32_t>('e');
    for (auto _ : state)
        benchmark::DoNotOptimize(c.allows(e));
}
BENCHMARK(BM_AllowsOneToken);

}  // namespace
}  // namespace slipstream::agent::infer

BENCHMARK_MAIN();
