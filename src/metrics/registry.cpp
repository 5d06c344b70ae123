// Registration (name checks, collisions) and rendering of all families.
#include "metrics/registry.h"

#include <algorithm>
#include <span>
#include <stdexcept>
#include <thread>
#include <type_traits>
#include <utility>

#include "metrics/names.h"

namespace slipstream::metrics {
namespace {

std::uint32_t default_shards() {
    constexpr std::uint32_t kMaxDefault = 64;
    std::uint32_t threads = std::max(1u, std::thread::hardware_concurrency());
    std::uint32_t shards = 1;
    while (shards < threads && shards < kMaxDefault)
        shards *= 2;
    return shards;
}

// The sample names a family writes: its own, plus the suffixed ones of a histogram.
std::vector<std::string> sample_names_of(const std::string& name, std::string_view type) {
    if (type != Histogram::kTypeName) return {name};
    return {name, name + "_bucket", name + "_sum", name + "_count"};
}

}  // namespace

Registry::Registry(RegistryOptions options) : arena_(options.shards == 0 ? default_shards() : options.shards) {}

Registry::~Registry() = default;

void Registry::install(std::unique_ptr<detail::FamilyBase> family) {
    std::vector<std::string> names = sample_names_of(family->name(), family->type());
    std::lock_guard<std::mutex> lock(mu_);
    for (const std::string& n : names) {
        if (sample_names_.count(n) != 0) {
            throw std::invalid_argument("metrics: cannot register " + std::string(family->type()) + " \"" +
                                        family->name() + "\": sample name \"" + n + "\" is already taken");
        }
    }
    sample_names_.insert(names.begin(), names.end());
    families_.push_back(std::move(family));
}

template <typename M>
Family<M>& Registry::make_family(std::string name, std::string help, std::vector<std::string> label_names,
                                 typename M::Options options) {
    validate_metric_name(name);
    validate_label_names(name, label_names, std::is_same_v<M, Histogram>);
    auto family = std::make_unique<Family<M>>(std::move(name), std::move(help), std::move(label_names), arena_,
                                              std::move(options));
    Family<M>& ref = *family;
    install(std::move(family));
    return ref;
}

CounterFamily& Registry::counter_family(std::string name, std::string help, std::vector<std::string> label_names) {
    return make_family<Counter>(std::move(name), std::move(help), std::move(label_names), {});
}
DoubleCounterFamily& Registry::double_counter_family(std::string name, std::string help,
                                                     std::vector<std::string> label_names) {
    return make_family<DoubleCounter>(std::move(name), std::move(help), std::move(label_names), {});
}
GaugeFamily& Registry::gauge_family(std::string name, std::string help, std::vector<std::string> label_names) {
    return make_family<Gauge>(std::move(name), std::move(help), std::move(label_names), {});
}
DoubleGaugeFamily& Registry::double_gauge_family(std::string name, std::string help,
                                                 std::vector<std::string> label_names) {
    return make_family<DoubleGauge>(std::move(name), std::move(help), std::move(label_names), {});
}
HistogramFamily& Registry::histogram_family(std::string name, std::string help, std::vector<std::string> label_names,
                                            Buckets buckets) {
    return make_family<Histogram>(std::move(name), std::move(help), std::move(label_names), std::move(buckets));
}

Counter& Registry::counter(std::string name, std::string help) {
    return counter_family(std::move(name), std::move(help), {}).with(std::span<const std::string_view>());
}
DoubleCounter& Registry::double_counter(std::string name, std::string help) {
    return double_counter_family(std::move(name), std::move(help), {}).with(std::span<const std::string_view>());
}
Gauge& Registry::gauge(std::string name, std::string help) {
    return gauge_family(std::move(name), std::move(help), {}).with(std::span<const std::string_view>());
}
DoubleGauge& Registry::double_gauge(std::string name, std::string help) {
    return double_gauge_family(std::move(name), std::move(help), {}).with(std::span<const std::string_view>());
}
Histogram& Registry::histogram(std::string name, std::string help, Buckets buckets) {
    return histogram_family(std::move(name), std::move(help), {}, std::move(buckets))
        .with(std::span<const std::string_view>());
}

void Registry::callback_gauge(std::string name, std::string help, ValueCallback callback) {
    validate_metric_name(name);
    install(std::make_unique<detail::CallbackFamily>(std::move(name), std::move(help), "gauge", std::move(callback)));
}

void Registry::callback_counter(std::string name, std::string help, ValueCallback callback) {
    validate_metric_name(name);
    install(std::make_unique<detail::CallbackFamily>(std::move(name), std::move(help), "counter", std::move(callback)));
}

void Registry::callback_gauge_family(std::string name, std::string help, std::vector<std::string> label_names,
                                     SamplesCallback callback) {
    callback_family(std::move(name), std::move(help), "gauge", std::move(label_names), std::move(callback));
}

void Registry::callback_counter_family(std::string name, std::string help, std::vector<std::string> label_names,
                                       SamplesCallback callback) {
    callback_family(std::move(name), std::move(help), "counter", std::move(label_names), std::move(callback));
}

void Registry::callback_family(std::string name, std::string help, std::string_view type,
                               std::vector<std::string> label_names, SamplesCallback callback) {
    validate_metric_name(name);
    validate_label_names(name, label_names, false);
    install(std::make_unique<detail::LabeledCallbackFamily>(std::move(name), std::move(help), type,
                                                            std::move(label_names), std::move(callback)));
}

void Registry::render(std::string& out) const {
    std::lock_guard<std::mutex> lock(mu_);
    for (const auto& family : families_)
        family->render(out);
}

}  // namespace slipstream::metrics
