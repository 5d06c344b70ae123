// Capsule: one decision point in memory: its spec, its model and the learning updates waiting to be applied in
// sequence order.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "agent/decide/capsule_model.h"
#include "agent/decide/decide_types.h"

namespace slipstream::agent::decide {

/// A committed learning update: the reward for the action taken in the context.
struct LearnUpdate {
    std::int64_t generation = 0;
    std::string context_json;
    std::size_t action = 0;
    double reward = 0.0;
    std::string features_json = {};  // the request's action features (empty: the spec's)
};

/// Guarded by `mutex` (every member below it). Updates are committed with a per-capsule sequence number
/// (decide_capsules.updates) and applied here strictly in that order, so the model in memory is the one a replay
/// of decide_updates rebuilds.
struct Capsule {
    /// Committed updates that may wait for an earlier one; past it the missing one is skipped (see committed()).
    static constexpr std::size_t kMaxWaiting = 1024;

    explicit Capsule(CapsuleRef r) : ref(std::move(r)) {}

    const CapsuleRef ref;
    std::mutex mutex;
    std::int64_t spec_version = 0;
    std::string spec_json;
    std::unique_ptr<CapsuleModel> model;
    std::int64_t applied_seq = 0;                 // the last update seq applied (or skipped: another generation)
    std::map<std::int64_t, LearnUpdate> waiting;  // committed, after a seq not applied yet
    std::uint64_t since_snapshot = 0;
    std::uint64_t decisions = 0;    // since start
    std::uint64_t explored = 0;     // decisions since start that took another action than the most probable one
    std::uint64_t rewards = 0;      // since start
    double reward_sum = 0.0;        // of those rewards
    std::uint64_t shadow_lost = 0;  // frozen-mode decisions dropped because the write queue was full

    /// Adds the update committed as `seq` and applies every update that is now in order. Returns how many were
    /// learned. When more than kMaxWaiting wait, the missing seqs before them are skipped (an update whose
    /// COMMIT outcome was lost with its connection), so a capsule never stops learning. Call with the mutex held.
    std::size_t committed(std::int64_t seq, LearnUpdate update);
    /// Replaces the model (a new generation) or only the spec (same model key). Call with the mutex held.
    void set_spec(std::shared_ptr<const CapsuleSpec> spec, std::string spec_json, std::int64_t version,
                  std::int64_t generation, const SpecLimits& limits);
};

}  // namespace slipstream::agent::decide
