// NativeLlmProxy: slipstream::LlmProxy for Python apps; its routes never take the GIL.
#include "py_llm_proxy.h"

#include <nanobind/stl/string.h>

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>

#include "native_app.h"
#include "option_values.h"
#include "py_finalizing.h"
#include "slipstream/llm_proxy.h"

namespace nb = nanobind;

namespace slipstream::python {

namespace {

using option_values::count;
using option_values::flag;
using option_values::text;

constexpr std::uint64_t kDay = 86'400'000;  // the longest timeout, in milliseconds

LlmUpstreamOptions upstream_from_dict(const nb::dict& options) {
    LlmUpstreamOptions o;
    for (auto [k, v] : options) {
        const std::string key = nb::cast<std::string>(k);
        if (key == "base_url") {
            o.base_url = text(v, key);
        } else if (key == "chat_path") {
            o.chat_path = text(v, key);
        } else if (key == "api_key") {
            o.api_key = text(v, key);
        } else if (key == "headers") {
            for (nb::handle pair : v) {
                if (!nb::isinstance<nb::tuple>(pair) || nb::len(pair) != 2)
                    throw std::invalid_argument("headers must be (name, value) pairs");
                o.headers.emplace_back(text(pair[0], "a header name"), text(pair[1], "a header value"));
            }
        } else if (key == "verify_tls") {
            o.verify_tls = flag(v, key);
        } else if (key == "ca_file") {
            o.ca_file = text(v, key);
        } else if (key == "connect_timeout_ms") {
            o.connect_timeout_ms = static_cast<std::uint32_t>(count(v, key, 1, kDay));
        } else if (key == "first_byte_timeout_ms") {
            o.first_byte_timeout_ms = static_cast<std::uint32_t>(count(v, key, 1, kDay));
        } else if (key == "idle_timeout_ms") {
            o.idle_timeout_ms = static_cast<std::uint32_t>(count(v, key, 1, kDay));
        } else if (key == "total_timeout_ms") {
            o.total_timeout_ms = static_cast<std::uint32_t>(count(v, key, 0, kDay));
        } else if (key == "max_connections") {
            o.max_connections = count(v, key, 1, 100'000);
        } else if (key == "max_waiting") {
            o.max_waiting = count(v, key, 0, 10'000'000);
        } else if (key == "http2") {
            const std::string mode = text(v, key);
            if (mode == "auto") {
                o.http2 = UpstreamHttp2::kAuto;
            } else if (mode == "off") {
                o.http2 = UpstreamHttp2::kOff;
            } else if (mode == "prior-knowledge") {
                o.http2 = UpstreamHttp2::kPriorKnowledge;
            } else {
                throw std::invalid_argument("http2 must be 'auto', 'off' or 'prior-knowledge'");
            }
        } else if (key == "max_streams") {
            o.max_streams = static_cast<std::uint32_t>(count(v, key, 1, 100'000));
        } else {
            throw std::invalid_argument("unknown upstream option: " + key);
        }
    }
    if (o.base_url.empty()) throw std::invalid_argument("base_url is required");
    return o;
}

LlmRouteOptions route_from_dict(const nb::dict& options) {
    LlmRouteOptions r;
    for (auto [k, v] : options) {
        const std::string key = nb::cast<std::string>(k);
        if (key == "schema") {
            r.schema = text(v, key);
        } else if (key == "format") {
            const std::string f = text(v, key);
            if (f != "sse" && f != "ndjson") throw std::invalid_argument("format must be 'sse' or 'ndjson'");
            r.format = f == "sse" ? StructuredFormat::kSse : StructuredFormat::kNdjson;
        } else if (key == "events") {
            const std::string e = text(v, key);
            if (e != "partial" && e != "delta") throw std::invalid_argument("events must be 'partial' or 'delta'");
            r.call.events = e == "partial" ? StructuredEvents::kPartial : StructuredEvents::kDelta;
        } else if (key == "default_model") {
            r.call.default_model = text(v, key);
        } else if (key == "add_response_format") {
            r.call.add_response_format = flag(v, key);
        } else if (key == "strict") {
            r.call.strict = flag(v, key);
        } else if (key == "schema_name") {
            r.call.schema_name = text(v, key);
        } else if (key == "max_output_bytes") {
            r.call.max_output_bytes = count(v, key, 1, std::uint64_t{1} << 34);
        } else if (key == "max_request_bytes") {
            r.max_request_bytes = count(v, key, 1, std::uint64_t{1} << 34);
        } else {
            throw std::invalid_argument("unknown route option: " + key);
        }
    }
    if (r.schema.empty()) throw std::invalid_argument("schema is required");
    return r;
}

/// A Python callable called from the proxy's thread: each call takes the GIL; the reference is dropped with the GIL
/// held, or leaked once the interpreter is finalizing (no thread may take the GIL then).
class PySink {
  public:
    explicit PySink(nb::object fn) : fn_(fn.release().ptr()) {}
    ~PySink() {
        if (interpreter_finalizing()) return;
        PyGILState_STATE gil = PyGILState_Ensure();
        Py_DECREF(fn_);
        PyGILState_Release(gil);
    }
    PySink(const PySink&) = delete;
    PySink& operator=(const PySink&) = delete;

    /// sink(kind, payload, status, retry_after); an exception it raises is reported as unraisable.
    void operator()(std::string_view kind, std::string_view payload, int status, std::string_view retry_after) const {
        if (interpreter_finalizing()) return;
        PyGILState_STATE gil = PyGILState_Ensure();
        PyObject* args[4] = {text(kind), text(payload), PyLong_FromLong(status), text(retry_after)};
        PyObject* got = nullptr;
        if (args[0] && args[1] && args[2] && args[3]) got = PyObject_Vectorcall(fn_, args, 4, nullptr);
        for (PyObject* a : args)
            Py_XDECREF(a);
        if (got == nullptr) PyErr_WriteUnraisable(fn_);
        Py_XDECREF(got);
        PyGILState_Release(gil);
    }

  private:
    static PyObject* text(std::string_view s) {
        return PyUnicode_DecodeUTF8(s.data(), static_cast<Py_ssize_t>(s.size()), "replace");
    }

    PyObject* fn_;
};

/// A compiled schema, shared by the calls validated against it.
struct NativeLlmSchema {
    std::shared_ptr<const StructuredSchema> schema;
};

/// One call in flight (LlmCall); every method from any thread, without the GIL.
struct NativeLlmCall {
    std::shared_ptr<LlmCall> call;
};

LlmCallOptions call_from_dict(const nb::dict& options) {
    nb::dict route;
    for (auto [k, v] : options)
        route[k] = v;
    route["schema"] = "{}";
    LlmRouteOptions r = route_from_dict(route);
    if (r.format != StructuredFormat::kSse || r.max_request_bytes != LlmRouteOptions{}.max_request_bytes)
        throw std::invalid_argument("format and max_request_bytes are route options");
    return r.call;
}

class NativeLlmProxy {
  public:
    explicit NativeLlmProxy(const nb::dict& options) {
        LlmUpstreamOptions o = upstream_from_dict(options);
        nb::gil_scoped_release release;  // loading a CA file
        proxy_ = std::make_unique<LlmProxy>(std::move(o));
    }

    ~NativeLlmProxy() {
        // Joins the proxy's thread when no route holds it any more; its handlers never take the GIL.
        nb::gil_scoped_release release;
        proxy_.reset();
    }

    NativeLlmProxy(const NativeLlmProxy&) = delete;
    NativeLlmProxy& operator=(const NativeLlmProxy&) = delete;

    void mount(NativeApp& app, const std::string& path, const nb::dict& route) {
        if (app.started()) throw std::invalid_argument("add the upstream route before the app starts");
        proxy_->mount(app.app(), path, route_from_dict(route));
    }

    /// One call: the sink hears ("refused", body, status, retry_after) once, or ("start", ...) then each event
    /// (kind, its JSON) up to "complete" or "error"; from the proxy's thread (a refusal of a bad request at once).
    NativeLlmCall start(std::string body, const NativeLlmSchema& schema, const nb::dict& options, nb::object sink) {
        LlmCallOptions o = call_from_dict(options);
        auto to = std::make_shared<PySink>(std::move(sink));
        LlmCallHandlers handlers;
        handlers.on_refused = [to](const LlmRefusal& r) { (*to)("refused", r.body, r.status, r.retry_after); };
        handlers.on_start = [to] { (*to)("start", "", 200, ""); };
        handlers.on_event = [to](const LlmStreamEvent& e) { (*to)(e.kind, e.json, 200, ""); };
        nb::gil_scoped_release release;  // the handlers take the GIL themselves
        return NativeLlmCall{proxy_->start(std::move(body), schema.schema, std::move(o), std::move(handlers))};
    }

    nb::dict stats() const {
        const LlmProxyStats s = proxy_->stats();
        nb::dict d;
        d["started"] = s.started;
        d["refused"] = s.refused;
        d["completed"] = s.completed;
        d["invalid"] = s.invalid;
        d["failed"] = s.failed;
        d["cancelled"] = s.cancelled;
        d["active"] = s.active;
        return d;
    }

  private:
    std::unique_ptr<LlmProxy> proxy_;
};

}  // namespace

void register_llm_proxy(nb::module_& m) {
    nb::class_<NativeLlmSchema>(m, "NativeLlmSchema")
        .def(
            "__init__",
            [](NativeLlmSchema* self, const std::string& json) {
                new (self) NativeLlmSchema{StructuredSchema::compile(json)};
            },
            nb::arg("schema_json"));
    using Release = nb::call_guard<nb::gil_scoped_release>;
    nb::class_<NativeLlmCall>(m, "NativeLlmCall")
        .def(
            "cancel", [](NativeLlmCall& c) { c.call->cancel(); }, Release())
        .def(
            "pause", [](NativeLlmCall& c) { c.call->pause(); }, Release())
        .def(
            "resume", [](NativeLlmCall& c) { c.call->resume(); }, Release())
        .def(
            "done", [](const NativeLlmCall& c) { return c.call->done(); }, Release());
    nb::class_<NativeLlmProxy>(m, "NativeLlmProxy")
        .def(nb::init<const nb::dict&>(), nb::arg("options"))
        .def("mount", &NativeLlmProxy::mount, nb::arg("app"), nb::arg("path"), nb::arg("route"))
        .def("start", &NativeLlmProxy::start, nb::arg("body"), nb::arg("schema"), nb::arg("options"), nb::arg("sink"))
        .def("stats", &NativeLlmProxy::stats);
}

}  // namespace slipstream::python
