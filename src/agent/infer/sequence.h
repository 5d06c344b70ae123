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

/// kForkPending: a fork waiting in no queue for the sequence that prefills its prompt (its prefiller).
enum class SequenceStatus : uint8_t { kWaiting, kRunning, kSwapped, kFinished, kForkPending };

/// Positions [0, num_computed) have K/V in the blocks of block_table; tokens[num_computed, size) are still to be
/// computed (after a decode step, just the sampled token; after admission, the uncached rest of the prompt).
/// The forks of one request share its id; fork 0 prefills the prompt, the others wait in its `forks` until the
/// prompt's last chunk gives logits, then take its blocks (shared, copy-on-write) and sample from the same row.
/// Owned by the scheduler and touched only by its step thread.
struct Sequence {
    using Clock = std::chrono::steady_clock;

    /// Copies the prompt, sampling parameters and callback from `request`, which all forks of a request share.
    Sequence(uint64_t id_, int32_t fork_, const GenerationRequest& request,
             std::shared_ptr<TokenConstraint> constraint_, uint64_t fallback_seed, Clock::time_point now,
             uint64_t arrival_order_)
        : id(id_),
          fork(fork_),
          tokens(request.prompt),
          num_prompt_tokens(static_cast<int64_t>(tokens.size())),
          sampler(request.sampling, tokens, fallback_seed),
          priority(request.priority),
          deadline(request.deadline),
          arrival(now),
          arrival_order(arrival_order_),
          on_event(request.on_event),
          constraint(std::move(constraint_)) {}

    int64_t num_tokens() const { return static_cast<int64_t>(tokens.size()); }
    int64_t num_output_tokens() const { return num_tokens() - num_prompt_tokens; }
    std::span<const int32_t> prompt() const { return {tokens.data(), static_cast<size_t>(num_prompt_tokens)}; }
    std::span<const int32_t> output() const {
        return std::span<const int32_t>(tokens).subspan(static_cast<size_t>(num_prompt_tokens));
    }

    uint64_t id;
    int32_t fork;
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
    std::vector<Sequence*> forks;                 // pending forks waiting for this sequence's prompt (in fork order)
    Sequence* prefiller = nullptr;                // while kForkPending: the sequence whose forks list holds this one
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
