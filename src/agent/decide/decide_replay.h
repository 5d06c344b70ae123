// replay_log(): the off-policy evaluation of POST .../evaluate and the promotion gate of .../promote, run over an
// exported decision log (GET .../decisions?format=jsonl) instead of the store: for CI (`slipstream-decide replay`).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "agent/decide/capsule_spec.h"
#include "base/result.h"

namespace slipstream::agent::decide {

struct ReplayOptions {
    std::size_t min_samples = 100;          // the gate's sample floor
    std::size_t resamples = 200;            // bootstrap resamples
    std::uint64_t seed = 1;                 // of the bootstrap
    std::size_t max_decisions = 1'000'000;  // closed decisions one replay reads; more is an error
    std::size_t max_line_bytes = 1 << 20;   // one exported line
    SpecLimits limits;
};

struct ReplayOutcome {
    std::string report_json;           // the evaluation as POST .../evaluate answers it, plus "open" and "gate"
    std::vector<std::string> reasons;  // why the gate fails; empty: it holds
};

/// A spec document (JSON or YAML; also GET .../spec's answer, {"spec": ..., "version": ...}) as the spec's JSON.
base::Result<std::string> read_spec_document(std::string_view text);

/// Reads the exported lines (`log`: several pages or files concatenated, in any order: sorted by createdAt, then
/// decisionId), keeps the closed decisions with a reward, and judges `candidate_patch` (an RFC 7396 patch onto
/// `spec_json`, JSON or YAML; empty: the current spec itself) against the current spec. kInvalidArgument naming the
/// line for a line that is not an exported decision, a spec error with its pointer, past max_decisions.
base::Result<ReplayOutcome> replay_log(std::string_view spec_json, std::string_view candidate_patch,
                                       std::string_view log, const ReplayOptions& options);

}  // namespace slipstream::agent::decide
