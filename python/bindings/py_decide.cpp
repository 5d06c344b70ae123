// NativeDecisions: slipstream::DecisionService for Python apps (the request path never takes the GIL); and
// decide_replay: the off-policy evaluation and promotion gate over an exported log.
#include "py_decide.h"

#include <nanobind/stl/string.h>
#include <nanobind/stl/string_view.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include "native_app.h"
#include "option_values.h"
#include "slipstream/decisions.h"

namespace nb = nanobind;

namespace slipstream::python {

namespace {

std::uint64_t count(const nb::handle& value, const std::string& key, std::uint64_t max) {
    return option_values::count(value, key, 0, max);
}

// Each option key and how it sets its field (bounds beyond these are DecisionService's).
using Setter = std::function<void(DecisionsOptions&, const nb::handle&, const std::string&)>;
template <typename T>
Setter number(T DecisionsOptions::*field, std::uint64_t max) {
    return [field, max](DecisionsOptions& o, const nb::handle& v, const std::string& key) {
        o.*field = static_cast<T>(count(v, key, max));
    };
}
Setter text(std::string DecisionsOptions::*field) {
    return
        [field](DecisionsOptions& o, const nb::handle& v, const std::string&) { o.*field = nb::cast<std::string>(v); };
}
Setter flag(bool DecisionsOptions::*field) {
    return [field](DecisionsOptions& o, const nb::handle& v, const std::string&) { o.*field = nb::cast<bool>(v); };
}

const std::map<std::string, Setter>& setters() {
    using O = DecisionsOptions;
    constexpr std::uint64_t kBig = std::uint64_t{1} << 40;
    static const std::map<std::string, Setter> table = {
        {"store_url", text(&O::store_url)},
        {"buffered_decisions", flag(&O::buffered_decisions)},
        {"max_capsules", number(&O::max_capsules, 10'000'000)},
        {"max_actions", number(&O::max_actions, 100'000)},
        {"max_dimension", number(&O::max_dimension, 65'536)},
        {"max_features", number(&O::max_features, 100'000)},
        {"max_spec_bytes", number(&O::max_spec_bytes, 64 << 20)},
        {"max_model_bytes", number(&O::max_model_bytes, kBig)},
        {"max_context_bytes", number(&O::max_context_bytes, 64 << 20)},
        {"max_batch", number(&O::max_batch, 100'000)},
        {"shadow_queue", number(&O::shadow_queue, 100'000'000)},
        {"shadow_flush_ms", number(&O::shadow_flush_ms, 60'000)},
        {"shadow_batch", number(&O::shadow_batch, 100'000)},
        {"snapshot_every", number(&O::snapshot_every, 100'000'000)},
        {"sweep_interval_ms", number(&O::sweep_interval_ms, 3'600'000)},
        {"max_page", number(&O::max_page, 100'000)},
        {"max_evaluate", number(&O::max_evaluate, 100'000'000)},
        {"max_resamples", number(&O::max_resamples, 100'000)},
        {"promote_min_samples", number(&O::promote_min_samples, 100'000'000)},
        {"metrics_capsules", number(&O::metrics_capsules, 1'000'000)},
        {"metrics", flag(&O::metrics)},
        {"access_file", text(&O::access_file)},
        {"default_access", text(&O::default_access)},
        {"decide_rate_limit", text(&O::decide_rate_limit)},
        {"reward_rate_limit", text(&O::reward_rate_limit)},
        {"rate_limit_burst", number(&O::rate_limit_burst, 1'000'000'000)},
        {"rate_limit_max_keys", number(&O::rate_limit_max_keys, 1'000'000'000)},
    };
    return table;
}

class NativeDecisions {
  public:
    explicit NativeDecisions(const nb::dict& options) {
        DecisionsOptions o;
        for (auto [k, v] : options) {
            const std::string key = nb::cast<std::string>(k);
            auto it = setters().find(key);
            if (it == setters().end()) throw std::invalid_argument("unknown decisions option: " + key);
            it->second(o, v, key);
        }
        nb::gil_scoped_release release;
        service_ = std::make_unique<DecisionService>(std::move(o));
    }

    std::string mount(NativeApp& app, const std::string& prefix, const std::string& openapi_path) {
        if (app.started()) throw std::invalid_argument("mount the decisions before the app starts");
        return service_->mount(app.app(), prefix, openapi_path);
    }

    void close() {
        nb::gil_scoped_release release;
        service_->close();
    }

  private:
    std::unique_ptr<DecisionService> service_;
};

std::tuple<std::string, std::vector<std::string>> replay(const std::string& spec, const std::string& candidate,
                                                         const std::string& log, const nb::dict& options) {
    DecisionReplayOptions o;
    for (auto [k, v] : options) {
        const std::string key = nb::cast<std::string>(k);
        if (key == "min_samples")
            o.min_samples = count(v, key, 1'000'000'000);
        else if (key == "resamples")
            o.resamples = count(v, key, 100'000);
        else if (key == "seed")
            o.seed = count(v, key, UINT64_MAX >> 1);
        else if (key == "max_decisions")
            o.max_decisions = count(v, key, 100'000'000);
        else
            throw std::invalid_argument("unknown replay option: " + key);
    }
    nb::gil_scoped_release release;
    DecisionReplay r = replay_decisions(spec, candidate, log, o);
    return {std::move(r.report_json), std::move(r.reasons)};
}

}  // namespace

void register_decide(nb::module_& m) {
    nb::class_<NativeDecisions>(m, "NativeDecisions")
        .def(nb::init<const nb::dict&>(), nb::arg("options"))
        .def("mount", &NativeDecisions::mount, nb::arg("app"), nb::arg("prefix"), nb::arg("openapi_path"))
        .def("close", &NativeDecisions::close);
    m.def("decide_replay", &replay, nb::arg("spec"), nb::arg("candidate"), nb::arg("log"), nb::arg("options"));
}

}  // namespace slipstream::python
