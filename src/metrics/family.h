// Family<M>: a labelled set of counters, gauges or histograms sharing one name; children made on demand.
#pragma once

#include <algorithm>
#include <cstddef>
#include <initializer_list>
#include <map>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "metrics/counter.h"
#include "metrics/family_base.h"
#include "metrics/gauge.h"
#include "metrics/histogram.h"
#include "metrics/slot_arena.h"

namespace slipstream::metrics {

/// Children of one metric name, one per distinct tuple of label values (values in label-name order).
///
/// with() takes a lock and, the first time a tuple is seen, allocates: it is for start-up or the
/// first request of a kind, not for every request. Callers look a child up once and keep the reference
/// (e.g. per route, per status class). Children are never destroyed or moved while the Registry lives,
/// so the reference stays valid and may be used from any thread. Rendered children are sorted by their
/// label values. Created and owned by a Registry.
template <typename M>
class Family final : public detail::FamilyBase {
  public:
    Family(std::string name, std::string help, std::vector<std::string> label_names, detail::SlotArena& arena,
           typename M::Options options)
        : FamilyBase(std::move(name), std::move(help), M::kTypeName, std::move(label_names)),
          arena_(arena),
          options_(std::move(options)) {}

    /// The child for these label values, made on first use. Thread-safe. Throws std::invalid_argument when
    /// the number of values differs from the number of label names (a programming error).
    M& with(std::initializer_list<std::string_view> values) { return with(std::span(values.begin(), values.size())); }
    M& with(std::span<const std::string_view> values) {
        check_arity(values.size());
        std::lock_guard<std::mutex> lock(mu_);
        auto it = children_.find(values);
        if (it == children_.end()) {
            std::vector<std::string> key(values.begin(), values.end());
            Child child{label_text(values), std::make_unique<M>(arena_, options_)};
            it = children_.emplace(std::move(key), std::move(child)).first;
        }
        return *it->second.metric;
    }

    /// Number of children made so far.
    std::size_t size() const {
        std::lock_guard<std::mutex> lock(mu_);
        return children_.size();
    }

  private:
    struct Child {
        std::string labels;  // escaped `a="x",b="y"`, made once
        std::unique_ptr<M> metric;
    };
    // Orders label tuples lexicographically; looks up by string_views without building a key.
    struct Less {
        using is_transparent = void;
        template <typename A, typename B>
        bool operator()(const A& a, const B& b) const {
            return std::lexicographical_compare(a.begin(), a.end(), b.begin(), b.end(),
                                                [](std::string_view x, std::string_view y) { return x < y; });
        }
    };

    void render_samples(std::string& out) const override {
        std::lock_guard<std::mutex> lock(mu_);
        for (const auto& [values, child] : children_)
            child.metric->render(name(), child.labels, out);
    }

    detail::SlotArena& arena_;
    const typename M::Options options_;
    mutable std::mutex mu_;
    std::map<std::vector<std::string>, Child, Less> children_;
};

using CounterFamily = Family<Counter>;
using DoubleCounterFamily = Family<DoubleCounter>;
using GaugeFamily = Family<Gauge>;
using DoubleGaugeFamily = Family<DoubleGauge>;
using HistogramFamily = Family<Histogram>;

}  // namespace slipstream::metrics
