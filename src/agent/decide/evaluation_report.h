// EvaluationReport: a candidate and the current spec judged on one log, its JSON, and the promotion gate; shared by
// POST .../evaluate and .../promote and by `slipstream-decide replay`.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "agent/decide/capsule_spec.h"
#include "agent/decide/policy_evaluation.h"

namespace slipstream::agent::decide {

struct EvaluationReport {
    std::size_t logged = 0;  // decisions in the log
    std::size_t resamples = 0;
    PolicyEvaluation candidate;
    PolicyEvaluation current;
};

/// Both specs replayed over `log` (evaluate_policy), with the same resamples and seed.
EvaluationReport evaluate_candidate(const std::shared_ptr<const CapsuleSpec>& candidate,
                                    const std::shared_ptr<const CapsuleSpec>& current, const SpecLimits& limits,
                                    const std::vector<LoggedDecision>& log, std::size_t resamples, std::uint64_t seed);

/// The report's JSON members, without braces: logged, specVersion (when given), resamples, confidence, logging,
/// candidate, current (each with samples, skipped, effectiveSamples, ips, snips, dm, dr: estimate, low, high).
std::string report_members(const EvaluationReport& report, std::optional<std::int64_t> spec_version);

/// Why the candidate may not be promoted: fewer than `min_samples` evaluated decisions, or a DR lower bound not
/// above the current policy's DR estimate. Empty: the gate holds.
std::vector<std::string> gate_reasons(const EvaluationReport& report, std::size_t min_samples);

}  // namespace slipstream::agent::decide
