// Registry: owns every metric family of a server and renders them for the /metrics endpoint.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "metrics/buckets.h"
#include "metrics/callback_family.h"
#include "metrics/family.h"
#include "metrics/family_base.h"
#include "metrics/slot_arena.h"

namespace slipstream::metrics {

struct RegistryOptions {
    /// Shards per counter and histogram (a power of two, at most 1024); 0 picks the number of hardware
    /// threads rounded up to a power of two, at most 64. More shards than writing threads costs only
    /// memory (8 bytes per cell per shard).
    std::uint32_t shards = 0;
};

/// Owns families and their children; nothing is ever removed, so every reference it hands out lives as
/// long as it does. No global instance: the server makes one and passes it to whoever records metrics.
///
/// Registration (the *_family, counter, gauge, histogram and callback_* calls) is control plane:
/// thread-safe, and throws std::invalid_argument with the reason on a bad metric or label name, or a
/// name (or a histogram's `_bucket`/`_sum`/`_count` sample name) already taken. render() may run on
/// any thread, concurrently with registration and with metric updates.
class Registry {
  public:
    explicit Registry(RegistryOptions options = {});
    ~Registry();
    Registry(const Registry&) = delete;
    Registry& operator=(const Registry&) = delete;

    CounterFamily& counter_family(std::string name, std::string help, std::vector<std::string> label_names);
    DoubleCounterFamily& double_counter_family(std::string name, std::string help,
                                               std::vector<std::string> label_names);
    GaugeFamily& gauge_family(std::string name, std::string help, std::vector<std::string> label_names);
    DoubleGaugeFamily& double_gauge_family(std::string name, std::string help, std::vector<std::string> label_names);
    HistogramFamily& histogram_family(std::string name, std::string help, std::vector<std::string> label_names,
                                      Buckets buckets);

    /// Unlabelled metrics: a family without label names, and its only child.
    Counter& counter(std::string name, std::string help);
    DoubleCounter& double_counter(std::string name, std::string help);
    Gauge& gauge(std::string name, std::string help);
    DoubleGauge& double_gauge(std::string name, std::string help);
    Histogram& histogram(std::string name, std::string help, Buckets buckets);

    /// An unlabelled gauge / counter whose value `callback` computes at every render (see ValueCallback).
    /// For a callback counter the function must return a non-decreasing value.
    void callback_gauge(std::string name, std::string help, ValueCallback callback);
    void callback_counter(std::string name, std::string help, ValueCallback callback);
    /// Labelled ones: `callback` lists the samples at every render (see SamplesCallback).
    void callback_gauge_family(std::string name, std::string help, std::vector<std::string> label_names,
                               SamplesCallback callback);
    void callback_counter_family(std::string name, std::string help, std::vector<std::string> label_names,
                                 SamplesCallback callback);

    /// Appends the text exposition format 0.0.4 (Content-Type `text/plain; version=0.0.4`): families in
    /// registration order, each with `# HELP` (unless help is empty) and `# TYPE`, children sorted by
    /// label values.
    void render(std::string& out) const;

    std::uint32_t shards() const { return arena_.shards(); }

  private:
    template <typename M>
    Family<M>& make_family(std::string name, std::string help, std::vector<std::string> label_names,
                           typename M::Options options);
    void callback_family(std::string name, std::string help, std::string_view type,
                         std::vector<std::string> label_names, SamplesCallback callback);
    /// Takes the family's sample names (throws when one is taken) and appends it to the render order.
    void install(std::unique_ptr<detail::FamilyBase> family);

    detail::SlotArena arena_;
    mutable std::mutex mu_;
    std::vector<std::unique_ptr<detail::FamilyBase>> families_;
    std::set<std::string, std::less<>> sample_names_;  // every sample name taken, with histogram suffixes
};

}  // namespace slipstream::metrics
