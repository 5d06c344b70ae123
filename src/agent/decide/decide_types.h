// The decision store's knobs and the values its operations take and answer.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "agent/decide/capsule_spec.h"
#include "agent/decide/reward_shaping.h"

namespace slipstream::agent::decide {

/// Every bound of the service (server knobs, --decide-*).
struct DecideLimits {
    SpecLimits spec;
    std::size_t max_capsules = 10'000;          // capsules one store holds (each keeps its model in memory)
    std::size_t max_context_bytes = 64 * 1024;  // a decision's context, compact JSON
    std::size_t max_batch = 100;                // requests in one batch call
    std::size_t shadow_queue = 10'000;          // frozen-mode decisions waiting to be written; past it, lost
    std::int64_t shadow_flush_ms = 50;          // the longest a queued decision waits
    std::size_t shadow_batch = 256;             // queued decisions written by one transaction (one COMMIT)
    std::size_t snapshot_every = 100;           // learned rewards between two model snapshots
    std::size_t max_page = 1000;                // decisions in one page
    std::size_t max_evaluate = 10'000;          // logged decisions one evaluation replays (newer ones are left out)
    std::size_t max_resamples = 1000;           // bootstrap resamples of one evaluation
    std::size_t min_promote_samples = 100;      // the smallest sample a promotion may rest on (requests may ask more)
};

/// A capsule's name: tenant, job and capsule (each 1-64 of [A-Za-z0-9._-], checked by the routes).
struct CapsuleRef {
    std::string tenant;
    std::string job;
    std::string name;
    std::string key() const { return tenant + "/" + job + "/" + name; }
};

struct SpecAnswer {
    std::string spec_json;  // compact
    std::int64_t version = 0;
    std::int64_t generation = 0;  // the spec version the current model began with
    bool created = false;
};

struct DecideRequest {
    std::string context_json = "{}";  // compact
    std::vector<std::string> only;
    std::vector<std::string> excluded;
    std::optional<std::string> baseline;
    std::string event_id;         // empty: none
    std::string features_json;    // {"<action id>": {features}} the request gave its actions; empty: none
    std::string invalid_pointer;  // set when the body is invalid beyond its schema (an action given twice)
    std::string request_json;     // the whole body, compact: an eventId reused with another body is a conflict
};

/// The decision as JSON (decide_json.h), and whether it is a stored one answered again for its eventId.
struct DecideAnswer {
    std::string json;
    bool replayed = false;
};

struct RewardRequest {
    std::string decision_id;
    RewardInput input;
    std::string key;           // idempotency key (sum aggregation: one reward per key); empty: none
    std::string request_json;  // the body, compact, kept with the reward
};

struct JsonAnswer {
    std::string json;
    std::string etag;       // GET .../model only
    std::string next = {};  // GET .../decisions as lines: the next cursor; empty: the last page
};

/// POST .../evaluate and .../promote: a candidate (a merge patch onto the current spec) judged on the closed
/// decisions logged in [from_ms, to_ms), oldest first, at most DecideLimits::max_evaluate.
struct EvaluateRequest {
    std::string patch_json = "{}";
    std::int64_t from_ms = 0;
    std::int64_t to_ms = INT64_MAX;
    std::size_t resamples = 200;
    std::uint64_t seed = 1;
    std::size_t min_samples = 0;  // promote: 0 means DecideLimits::min_promote_samples
};

/// A capsule's counters for /metrics (DecideStore::stats()): since the process started, except the versions.
struct CapsuleStats {
    CapsuleRef ref;
    Mode mode = Mode::kLearner;
    std::uint64_t decisions = 0;
    std::uint64_t explored = 0;  // decisions that took another action than the most probable one
    std::uint64_t rewards = 0;   // rewards that closed a decision (duplicates are not counted)
    double reward_sum = 0.0;
    std::uint64_t shadow_lost = 0;
    std::int64_t spec_version = 0;
    std::int64_t generation = 0;
    std::int64_t model_version = 0;  // learned updates of the generation
};

/// A page of decisions: after the cursor (created_at, id), within [from_ms, to_ms).
struct DecisionQuery {
    std::int64_t from_ms = 0;
    std::int64_t to_ms = INT64_MAX;
    std::string after;  // "<created_at>.<id>" from the previous page's `next`; empty: the first page
    std::size_t limit = 50;
    /// The export form: one JSON object per line (exported_line()), the cursor in JsonAnswer::next.
    bool lines = false;
};

}  // namespace slipstream::agent::decide
