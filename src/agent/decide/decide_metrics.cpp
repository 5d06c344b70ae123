// The decision service's /metrics series: per-capsule counters read from the store at scrape time.
#include "agent/decide/decide_metrics.h"

#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace slipstream::agent::decide {

namespace {

using Value = std::function<double(const CapsuleStats&)>;

// One sample per capsule the store lists, labelled tenant, job, capsule (and `extra` when given).
std::function<std::vector<MetricSample>()> per_capsule(std::shared_ptr<DecideStore> store, std::size_t max, Value value,
                                                       bool with_mode = false) {
    return [store = std::move(store), max, value = std::move(value), with_mode] {
        std::vector<MetricSample> out;
        for (const CapsuleStats& s : store->stats(max)) {
            MetricSample m{{s.ref.tenant, s.ref.job, s.ref.name}, value(s)};
            if (with_mode) m.labels.emplace_back(mode_name(s.mode));
            out.push_back(std::move(m));
        }
        return out;
    };
}

// Sub-millisecond buckets first: a decision in memory takes microseconds; a durable one waits for its COMMIT.
std::vector<double> latency_buckets() {
    return {10e-6, 25e-6, 50e-6, 100e-6, 250e-6, 500e-6, 1e-3, 2.5e-3, 5e-3, 10e-3, 25e-3, 50e-3, 100e-3, 250e-3, 1.0};
}

}  // namespace

DecideLatency register_decide_metrics(App& app, std::shared_ptr<DecideStore> store, std::size_t max_capsules) {
    const std::vector<std::string> labels = {"tenant", "job", "capsule"};
    auto counter = [&](const char* name, const char* help, Value v) {
        app.counter_metric(name, help, labels, per_capsule(store, max_capsules, std::move(v)));
    };
    auto gauge = [&](const char* name, const char* help, Value v) {
        app.gauge_metric(name, help, labels, per_capsule(store, max_capsules, std::move(v)));
    };
    counter("slipstream_decide_decisions_total", "Decisions made since start, by capsule.",
            [](const CapsuleStats& s) { return static_cast<double>(s.decisions); });
    counter("slipstream_decide_explored_decisions_total",
            "Decisions since start that took another action than the policy's most probable one.",
            [](const CapsuleStats& s) { return static_cast<double>(s.explored); });
    gauge("slipstream_decide_exploration_rate", "Explored decisions over decisions since start (0 before any).",
          [](const CapsuleStats& s) {
              return s.decisions == 0 ? 0.0 : static_cast<double>(s.explored) / static_cast<double>(s.decisions);
          });
    counter("slipstream_decide_rewards_total", "Rewards that closed a decision since start, by capsule.",
            [](const CapsuleStats& s) { return static_cast<double>(s.rewards); });
    gauge("slipstream_decide_reward_mean", "Mean of the rewards counted by slipstream_decide_rewards_total.",
          [](const CapsuleStats& s) { return s.rewards == 0 ? 0.0 : s.reward_sum / static_cast<double>(s.rewards); });
    counter("slipstream_decide_shadow_lost_total",
            "Write-behind decisions dropped because the write queue was full, by capsule.",
            [](const CapsuleStats& s) { return static_cast<double>(s.shadow_lost); });
    gauge("slipstream_decide_model_version", "Learned updates of the capsule's current model generation.",
          [](const CapsuleStats& s) { return static_cast<double>(s.model_version); });
    gauge("slipstream_decide_model_generation", "The spec version the capsule's current model began with.",
          [](const CapsuleStats& s) { return static_cast<double>(s.generation); });
    gauge("slipstream_decide_spec_version", "The capsule's current spec version.",
          [](const CapsuleStats& s) { return static_cast<double>(s.spec_version); });
    app.gauge_metric("slipstream_decide_capsule_info", "1 per capsule, labelled with its mode.",
                     {"tenant", "job", "capsule", "mode"},
                     per_capsule(
                         store, max_capsules, [](const CapsuleStats&) { return 1.0; }, true));
    app.gauge_metric("slipstream_decide_capsules", "Capsules in the store.",
                     [store] { return static_cast<double>(store->capsule_count()); });
    app.counter_metric("slipstream_decide_shadow_write_lost_total",
                       "Write-behind decisions lost since start: a full queue or a failed flush.",
                       [store] { return static_cast<double>(store->write_lost()); });
    app.gauge_metric("slipstream_decide_shadow_write_queued", "Write-behind decisions waiting to be written.",
                     [store] { return static_cast<double>(store->write_queued()); });
    DecideLatency latency;
    latency.decide = app.duration_histogram("slipstream_decide_decide_latency_seconds",
                                            "From a decision request's arrival to its answer.", latency_buckets());
    latency.reward = app.duration_histogram("slipstream_decide_reward_latency_seconds",
                                            "From a reward request's arrival to its answer.", latency_buckets());
    return latency;
}

}  // namespace slipstream::agent::decide
