// Scrape-time evaluation of callback metrics.
#include "metrics/callback_family.h"

#include <utility>

#include "metrics/text_format.h"

namespace slipstream::metrics::detail {

CallbackFamily::CallbackFamily(std::string name, std::string help, std::string_view type, ValueCallback callback)
    : FamilyBase(std::move(name), std::move(help), type, {}), callback_(std::move(callback)) {}

void CallbackFamily::render_samples(std::string& out) const {
    std::optional<double> value = callback_();
    if (!value) return;
    append_sample_start(out, name(), "", "");
    append_double(out, *value);
    out += '\n';
}

}  // namespace slipstream::metrics::detail
