// CallbackFamily: one unlabelled gauge or counter whose value a function computes at scrape time;
// LabeledCallbackFamily: a labelled one whose samples (label values and a value each) a function lists.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "metrics/family_base.h"

namespace slipstream::metrics {

/// Computes a value at scrape time; std::nullopt leaves the sample out (e.g. /proc could not be read).
/// Called on the scraping thread while the registry is locked: it must be thread-safe, quick, and must
/// not call back into the Registry.
using ValueCallback = std::function<std::optional<double>()>;

/// One sample of a labelled callback family: one value per label name, in the family's order.
struct LabeledValue {
    std::vector<std::string> labels;
    double value = 0.0;
};
/// Lists the samples at scrape time (same rules as ValueCallback). Samples whose label count differs from the
/// family's are left out; the rest are written sorted by label values.
using SamplesCallback = std::function<std::vector<LabeledValue>()>;

namespace detail {

class CallbackFamily final : public FamilyBase {
  public:
    CallbackFamily(std::string name, std::string help, std::string_view type, ValueCallback callback);

  private:
    void render_samples(std::string& out) const override;

    ValueCallback callback_;
};

class LabeledCallbackFamily final : public FamilyBase {
  public:
    LabeledCallbackFamily(std::string name, std::string help, std::string_view type,
                          std::vector<std::string> label_names, SamplesCallback callback);

  private:
    void render_samples(std::string& out) const override;

    SamplesCallback callback_;
};

}  // namespace detail
}  // namespace slipstream::metrics
