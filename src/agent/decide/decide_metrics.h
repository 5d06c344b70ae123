// register_decide_metrics(): the decision service's series on the App's /metrics page.
#pragma once

#include <cstddef>
#include <memory>

#include "agent/decide/decide_store.h"
#include "slipstream/app.h"

namespace slipstream::agent::decide {

/// The latency histograms the routes observe (from a request's arrival to its answer).
struct DecideLatency {
    DurationHistogram decide;  // each decision (one per item of a batch)
    DurationHistogram reward;  // each reward (one per item of a batch)
};

/// Registers, on `app` (before it starts; names under slipstream_decide_*, so once per App):
///   per capsule (labels tenant, job, capsule; at most `max_capsules` capsules, the first by name; 0: none):
///     decisions_total, explored_decisions_total, exploration_rate, rewards_total, reward_mean, shadow_lost_total,
///     model_version (learned updates), model_generation, spec_version, and capsule_info{mode} = 1;
///   unlabelled: capsules, shadow_write_lost_total, shadow_write_queued, and the histograms
///     decide_latency_seconds and reward_latency_seconds (buckets from 10 us to 1 s, sub-millisecond ones first).
/// Values come from the store at scrape time. Throws std::invalid_argument when a name is already taken.
DecideLatency register_decide_metrics(App& app, std::shared_ptr<DecideStore> store, std::size_t max_capsules);

}  // namespace slipstream::agent::decide
