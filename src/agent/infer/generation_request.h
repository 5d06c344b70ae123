// GenerationRequest and GenerationEvent: what a caller gives the scheduler and what it hears back.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string_view>
#include <vector>

#include "agent/infer/sampler.h"

namespace slipstream::agent::infer {

class TokenConstraint;

enum class FinishReason : uint8_t {
    kNone,       // still running
    kStop,       // emitted one of the stop tokens
    kLength,     // max_tokens, or the model's context (or the KV cache) is full
    kCancelled,  // cancel() or the scheduler stopped
    kDeadline,   // the request's deadline passed
    kError,
};

std::string_view finish_reason_name(FinishReason reason);

/// One stream of events per fork of a request, delivered on the scheduler's step thread, in order per fork; the
/// last one of each fork has finished = true. The callback must not block; it may call submit() and cancel().
struct GenerationEvent {
    uint64_t id = 0;
    int32_t fork = 0;                  // which of the request's n sequences (0..n-1)
    std::vector<SampledToken> tokens;  // accepted this step (more than one with speculative decoding)
    bool finished = false;
    FinishReason reason = FinishReason::kNone;
    int64_t prompt_tokens = 0;
    int64_t cached_prompt_tokens = 0;  // prompt tokens whose K/V came from the prefix cache on first admission
    int64_t completion_tokens = 0;     // emitted so far, these included
    double queue_seconds = 0.0;        // submit to first scheduled
    double ttft_seconds = 0.0;         // submit to first token (0 until then)
};

struct GenerationRequest {
    std::vector<int32_t> prompt;
    SamplingParams sampling;
    int priority = 0;  // higher runs first and is preempted last
    std::optional<std::chrono::steady_clock::time_point> deadline;
    std::function<void(const GenerationEvent&)> on_event;  // called for every fork's events
    /// Grammar-constrained decoding: only tokens it allows are sampled, a stop token only once it is complete; no
    /// speculative drafts. When it allows nothing the request finishes (kStop when complete, else kError). Null:
    /// unconstrained. Used by the step thread only; forks 1..n-1 get clone()s of it.
    std::shared_ptr<TokenConstraint> constraint;
    /// Parallel sampling: n sequences from one prompt, which is prefilled once and whose K/V blocks they share
    /// (copy-on-write). Fork i samples with seed sampling.seed + i (when has_seed) and its events carry fork = i.
    int32_t n = 1;
};

}  // namespace slipstream::agent::infer
