// Sequence: one request's state inside the scheduler: tokens, KV block table, sampler, status and timing.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "agent/infer/generation_request.h"
#include "agent/infer/sampler.h"

namespace slipstream::agent::infer {

enum class SequenceStatus : uint8_t { kWaiting, kRunning, kSwapped, kFinished };

/// Positions [0, num_computed) have K/V in the blocks of block_table; tokens[num_computed, size) are still to be
/// computed (after a decode step, just the sampled token; after admission, the uncached rest of the prompt).
/// Owned by the scheduler and touched only by its step thread.
struct Sequence {
    using Clock = std::chrono::steady_clock;

    Sequence(uint64_t id_, GenerationRequest&& request, uint64_t fallback_seed, Clock::time_point now,
             uint64_t arrival_order_)
        : id(id_),
          tokens(std::move(request.prompt)),
          num_prompt_tokens(static_cast<int64_t>(tokens.size())),
          sampler(request.sampling, tokens, fallback_seed),
          priority(request.priority),
          deadline(request.deadline),
          arrival(now),
          arrival_order(arrival_order_),
          on_event(std::move(request.on_event)),
          constraint(std::move(request.constraint)) {}

    int64_t num_tokens() const { return static_cast<int64_t>(tokens.size()); }
    int64_t num_output_tokens() const { return num_tokens() - num_prompt_tokens; }
    std::span<const int32_t> prompt() const { return {tokens.data(), static_cast<size_t>(num_prompt_tokens)}; }
    std::span<const int32_t> output() const {
        return std::span<const int32_t>(tokens).subspan(static_cast<size_t>(num_prompt_tokens));
    }

    uint64_t id;
    std::vector<int32_t> tokens;  // the prompt, then the output
    int64_t num_prompt_tokens;
    std::vector<int32_t> block_table;
    int64_t num_computed = 0;
    int64_t num_indexed_blocks = 0;                  // leading full blocks already offered to the prefix cache
    int64_t cached_prompt_tokens = -1;               // from the prefix cache at first admission (-1: not admitted yet)
    std::vector<std::vector<float>> swapped_blocks;  // host copies while swapped out, in block-table order
    int64_t swapped_bytes = 0;
    Sampler sampler;
    SequenceStatus status = SequenceStatus::kWaiting;
    int priority;
    std::optional<Clock::time_point> deadline;
    Clock::time_point arrival;
    uint64_t arrival_order;  // ties on arrival time go to the earlier submit
    std::optional<Clock::time_point> first_scheduled;
    std::optional<Clock::time_point> first_token;
    std::optional<Clock::time_point> last_token;
    std::function<void(const GenerationEvent&)> on_event;
    std::shared_ptr<TokenConstraint> constraint;  // null: unconstrained
};

/// Scheduling order: higher priority first, then earlier arrival.
inline bool runs_before(const Sequence& a, const Sequence& b) {
    if (a.priority != b.priority) return a.priority > b.priority;
    return a.arrival_order < b.arrival_order;
}

/// Inserts into a queue kept in runs_before order (after equals, which cannot occur: arrival orders differ).
inline void insert_in_order(std::vector<Sequence*>& queue, Sequence* seq) {
    auto at = std::upper_bound(queue.begin(), queue.end(), seq,
                               [](const Sequence* a, const Sequence* b) { return runs_before(*a, *b); });
    queue.insert(at, seq);
}

}  // namespace slipstream::agent::infer
