// NativeModel: slipstream::ModelServer for Python apps; the request path never takes the GIL.
#include "py_infer.h"

#include <nanobind/stl/string.h>

#include <memory>
#include <stdexcept>
#include <string>

#include "native_app.h"
#include "option_values.h"
#include "slipstream/model_server.h"

namespace nb = nanobind;

namespace slipstream::python {

namespace {

using option_values::integer;

ModelServerOptions options_from_dict(const nb::dict& options) {
    ModelServerOptions e;
    for (auto [k, v] : options) {
        const std::string key = nb::cast<std::string>(k);
        if (key == "model_id") {
            e.model_id = nb::cast<std::string>(v);
        } else if (key == "threads") {
            e.threads = static_cast<int>(integer(v, key, 0, 1024));
        } else if (key == "kv_cache_bytes") {
            e.kv_cache_bytes = integer(v, key, 64 * 1024, int64_t{1} << 40);
        } else if (key == "block_size") {
            e.block_size = integer(v, key, 1, 1024);
        } else if (key == "max_context") {
            e.max_context = integer(v, key, 0, 10'000'000);
        } else if (key == "max_batch_tokens") {
            e.max_batch_tokens = integer(v, key, 1, 1'000'000);
        } else if (key == "max_running") {
            e.max_running = integer(v, key, 1, 100'000);
        } else if (key == "prefill_chunk") {
            e.prefill_chunk = integer(v, key, 1, 1'000'000);
        } else if (key == "max_waiting") {
            e.max_waiting = integer(v, key, 1, 10'000'000);
        } else if (key == "preemption") {
            const std::string mode = nb::cast<std::string>(v);
            if (mode != "recompute" && mode != "swap")
                throw std::invalid_argument("preemption must be 'recompute' or 'swap'");
            e.swap_preemption = mode == "swap";
        } else if (key == "prefix_cache") {
            e.prefix_cache = nb::cast<bool>(v);
        } else if (key == "speculative_ngram") {
            e.speculative_ngram = static_cast<int>(integer(v, key, 0, 16));
        } else if (key == "draft_model") {
            e.draft_model = nb::cast<std::string>(v);
        } else if (key == "speculative_draft") {
            e.speculative_draft = static_cast<int>(integer(v, key, 0, 16));
        } else if (key == "draft_kv_cache_bytes") {
            e.draft_kv_cache_bytes = integer(v, key, 64 * 1024, int64_t{1} << 40);
        } else if (key == "max_choices") {
            e.max_choices = static_cast<int>(integer(v, key, 1, 1024));
        } else if (key == "default_max_tokens") {
            e.default_max_tokens = integer(v, key, 0, 10'000'000);
        } else {
            throw std::invalid_argument("unknown model option: " + key);
        }
    }
    return e;
}

class NativeModel {
  public:
    NativeModel(const std::string& path, const nb::dict& options) {
        ModelServerOptions o = options_from_dict(options);
        nb::gil_scoped_release release;
        server_ = std::make_unique<ModelServer>(path, std::move(o));
    }

    void mount(NativeApp& app, const std::string& prefix) {
        if (app.started()) throw std::invalid_argument("mount the model before the app starts");
        server_->mount(app.app(), prefix);
    }

    std::string model_id() const { return server_->model_id(); }

    nb::dict stats() const {
        const ModelServerStats s = server_->stats();
        nb::dict d;
        d["waiting"] = s.waiting;
        d["running"] = s.running;
        d["blocks_total"] = s.blocks_total;
        d["blocks_used"] = s.blocks_used;
        d["prefix_queried_tokens"] = s.prefix_queried_tokens;
        d["prefix_hit_tokens"] = s.prefix_hit_tokens;
        d["tokens_forwarded"] = s.tokens_forwarded;
        d["tokens_generated"] = s.tokens_generated;
        d["steps"] = s.steps;
        d["preemptions"] = s.preemptions;
        d["spec_proposed"] = s.spec_proposed;
        d["spec_accepted"] = s.spec_accepted;
        return d;
    }

    void close() {
        nb::gil_scoped_release release;
        server_->stop();
    }

  private:
    std::unique_ptr<ModelServer> server_;
};

}  // namespace

void register_infer(nb::module_& m) {
    nb::class_<NativeModel>(m, "NativeModel")
        .def(nb::init<const std::string&, const nb::dict&>(), nb::arg("path"), nb::arg("options"))
        .def("mount", &NativeModel::mount, nb::arg("app"), nb::arg("prefix"))
        .def_prop_ro("model_id", &NativeModel::model_id)
        .def("stats", &NativeModel::stats)
        .def("close", &NativeModel::close);
}

}  // namespace slipstream::python
