// Scrape-time evaluation of callback metrics.
#include "metrics/callback_family.h"

#include <algorithm>
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

LabeledCallbackFamily::LabeledCallbackFamily(std::string name, std::string help, std::string_view type,
                                             std::vector<std::string> label_names, SamplesCallback callback)
    : FamilyBase(std::move(name), std::move(help), type, std::move(label_names)), callback_(std::move(callback)) {}

void LabeledCallbackFamily::render_samples(std::string& out) const {
    std::vector<LabeledValue> samples = callback_();
    std::erase_if(samples, [this](const LabeledValue& s) { return s.labels.size() != label_names().size(); });
    std::sort(samples.begin(), samples.end(),
              [](const LabeledValue& a, const LabeledValue& b) { return a.labels < b.labels; });
    std::vector<std::string_view> values;
    for (const LabeledValue& s : samples) {
        values.assign(s.labels.begin(), s.labels.end());
        append_sample_start(out, name(), "", label_text(values));
        append_double(out, s.value);
        out += '\n';
    }
}

}  // namespace slipstream::metrics::detail
