// The _native extension module: NativeApp and PendingReply for the slipstream package.
#include <nanobind/nanobind.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <stdexcept>

#include "disconnects.h"
#include "native_app.h"
#include "pending_reply.h"
#include "plan_desc.h"
#ifdef SLIPSTREAM_PYTHON_DATABASE
#include "py_database.h"
#include "py_decide.h"
#include "py_sessions.h"
#include "py_shared_state.h"
#endif
#include "py_file.h"
#include "py_form.h"
#include "py_infer.h"
#include "py_llm_proxy.h"
#include "py_mcp.h"
#include "py_record.h"
#include "py_stream.h"
#include "py_structured.h"
#include "py_websocket.h"
#include "route_desc.h"
#include "slipstream/logging.h"

namespace nb = nanobind;
using slipstream::python::NativeApp;
using slipstream::python::PendingReply;

NB_MODULE(_native, m) {
    m.doc() = "Slipstream's C++ engine for the Python front end (use the slipstream package, not this module).";

    m.def("stop_python_threads", &slipstream::python::stop_python_threads, nb::arg("timeout_s"),
          "Stops every executor and waits until no thread of the extension runs Python; False on timeout.");
    nb::class_<NativeApp>(m, "NativeApp")
        .def(
            "__init__",
            [](NativeApp* self, nb::dict options, nb::object runtime) {
                new (self) NativeApp(options.ptr(), runtime.ptr());
            },
            nb::arg("options"), nb::arg("runtime"))
        .def(
            "add_route",
            [](NativeApp& self, const std::string& method, const std::string& pattern, nb::handle desc) {
                self.add_route(method, pattern, desc.ptr());
            },
            nb::arg("method"), nb::arg("pattern"), nb::arg("route"))
        .def(
            "add_static_route",
            [](NativeApp& self, const std::string& method, const std::string& pattern, int status,
               const std::string& content_type, std::vector<std::pair<std::string, std::string>> headers,
               nb::bytes body) {
                self.add_static_route(method, pattern, status, content_type, std::move(headers),
                                      std::string(body.c_str(), body.size()));
            },
            nb::arg("method"), nb::arg("pattern"), nb::arg("status"), nb::arg("content_type"), nb::arg("headers"),
            nb::arg("body"))
        .def("add_echo_route", &NativeApp::add_echo_route, nb::arg("method"), nb::arg("pattern"),
             nb::arg("body_schema"), nb::arg("status"))
        .def("listen", &NativeApp::listen, nb::arg("host"), nb::arg("port"))
        .def("start", &NativeApp::start)
        .def("run", &NativeApp::run)
        .def("stop", &NativeApp::stop)
        .def("wait", &NativeApp::wait)
        .def_prop_ro("on_executor_thread", &NativeApp::on_executor_thread)
        .def_prop_ro("port", &NativeApp::port);

    nb::class_<PendingReply>(m, "PendingReply")
        .def(
            "finish",
            [](PendingReply& self, nb::handle result, int status, nb::handle headers) {
                self.finish(result.ptr(), status, headers.is_none() ? nullptr : headers.ptr());
            },
            nb::arg("result").none(), nb::arg("status") = 0, nb::arg("headers") = nb::none())
        .def(
            "fail",
            [](PendingReply& self, nb::handle exc, nb::handle request) {
                self.fail(exc.ptr(), request.is_none() ? nullptr : request.ptr());
            },
            nb::arg("exc"), nb::arg("request") = nb::none())
        .def(
            "send", [](PendingReply& self, nb::handle response) { self.send(response.ptr()); }, nb::arg("response"))
        .def(
            "encode",
            [](const PendingReply& self, nb::handle value) {
                PyObject* out = self.encode(value.ptr());
                if (out == nullptr) throw nb::python_error();
                return nb::steal<nb::bytes>(out);
            },
            nb::arg("value"))
        .def("make_request",
             [](const PendingReply& self) {
                 PyObject* out = self.make_request();
                 if (out == nullptr) throw nb::python_error();
                 return nb::steal(out);
             })
        .def(
            "asgi_scope",
            [](const PendingReply& self, nb::handle base, nb::handle state) {
                PyObject* out = self.asgi_scope(base.ptr(), state.ptr());
                if (out == nullptr) throw nb::python_error();
                return nb::steal(out);
            },
            nb::arg("base"), nb::arg("state").none())
        .def("body",
             [](const PendingReply& self) {
                 PyObject* out = self.body();
                 if (out == nullptr) throw nb::python_error();
                 return nb::steal<nb::bytes>(out);
             })
        .def_prop_ro("done", &PendingReply::done)
        .def_prop_ro("cancel_id", &PendingReply::cancel_id);

    nb::class_<slipstream::python::Disconnects>(m, "Disconnects")
        .def_prop_ro("fd", &slipstream::python::Disconnects::fd)
        .def("take", &slipstream::python::Disconnects::take);

    // The route contract as C++ reads it at registration (route_desc.h), for its round-trip test.
    m.def(
        "read_route_desc",
        [](nb::handle route) {
            slipstream::python::RouteDesc desc = slipstream::python::read_route_desc(route.ptr());
            PyObject* out = slipstream::python::route_desc_to_python(desc);
            if (out == nullptr) throw nb::python_error();
            return nb::steal<nb::dict>(out);
        },
        nb::arg("route"));

    // The conversion-plan contract as C++ reads it at registration (plan_desc.h), for its round-trip test.
    m.def(
        "read_plan_desc",
        [](nb::handle plan) {
            slipstream::python::PlanDesc desc = slipstream::python::read_plan_desc(plan.ptr());
            PyObject* out = slipstream::python::plan_desc_to_python(desc);
            if (out == nullptr) throw nb::python_error();
            return nb::steal<nb::dict>(out);
        },
        nb::arg("plan"));

    // StreamWriter and format_sse (py_stream.cpp), parse_form (py_form.cpp).
    slipstream::python::register_stream(m);
    slipstream::python::register_form(m);
    slipstream::python::register_file(m);       // send_file (py_file.cpp)
    slipstream::python::register_websocket(m);  // WebSocketHub, NativeWebSocket (py_websocket.cpp)
    m.def(
        "set_log_options",
        [](const std::string& level, const std::string& format) {
            if (!slipstream::set_log_options(level, format))
                throw std::invalid_argument("unknown log level or format: " + level + ", " + format);
        },
        nb::arg("level"), nb::arg("format"));
    slipstream::python::register_record(m);      // Record, make_records (py_record.cpp)
    slipstream::python::register_structured(m);  // NativeStreamValidator (py_structured.cpp)
    slipstream::python::register_infer(m);       // NativeModel (py_infer.cpp)
    slipstream::python::register_llm_proxy(m);   // NativeLlmProxy (py_llm_proxy.cpp)
    slipstream::python::register_mcp(m);         // NativeMcp, NativeCall (py_mcp.cpp)
#ifdef SLIPSTREAM_PYTHON_DATABASE
    slipstream::python::register_database(m);  // NativeDatabase, add_database_readiness_check (py_database.cpp)
#endif
#ifdef SLIPSTREAM_PYTHON_DECIDE
    slipstream::python::register_decide(m);  // NativeDecisions, decide_replay (py_decide.cpp)
#endif
#ifdef SLIPSTREAM_PYTHON_SESSIONS
    slipstream::python::register_sessions(m);  // NativeSessions (py_sessions.cpp)
#endif
#ifdef SLIPSTREAM_PYTHON_SHARED_STATE
    slipstream::python::register_shared_state(m);  // NativeTokens, open_rate_limit_store (py_shared_state.cpp)
#endif
}
