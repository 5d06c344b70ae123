// Fuzz target: any bytes as an exported decision log replayed against a fixed two-action spec and a candidate
// patch (bad lines are errors; crashes, hangs and unbounded memory are not).
#include <cstdint>
#include <string_view>

#include "agent/decide/decide_replay.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    static constexpr std::string_view kSpec =
        R"({"actions":[{"id":"left"},{"id":"right"}],"features":{"dimension":8,"context":[{"name":"side",)"
        R"("type":"categorical"}]},"learner":{"type":"shared"},"exploration":{"type":"epsilonGreedy","epsilon":0.5}})";
    slipstream::agent::decide::ReplayOptions options;
    options.resamples = 4;
    options.max_decisions = 256;
    options.min_samples = 1;
    (void)slipstream::agent::decide::replay_log(kSpec, R"({"exploration":{"epsilon":0.1}})",
                                                std::string_view(reinterpret_cast<const char*>(data), size), options);
    return 0;
}
