// CallbackFamily: one unlabelled gauge or counter whose value a function computes at scrape time.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "metrics/family_base.h"

namespace slipstream::metrics {

/// Computes a value at scrape time; std::nullopt leaves the sample out (e.g. /proc could not be read).
/// Called on the scraping thread while the registry is locked: it must be thread-safe, quick, and must
/// not call back into the Registry.
using ValueCallback = std::function<std::optional<double>()>;

namespace detail {

class CallbackFamily final : public FamilyBase {
  public:
    CallbackFamily(std::string name, std::string help, std::string_view type, ValueCallback callback);

  private:
    void render_samples(std::string& out) const override;

    ValueCallback callback_;
};

}  // namespace detail
}  // namespace slipstream::metrics
