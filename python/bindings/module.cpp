// The _native extension module: NativeApp and PendingReply for the slipstream package.
#include <nanobind/nanobind.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include "native_app.h"
#include "pending_reply.h"

namespace nb = nanobind;
using slipstream::python::NativeApp;
using slipstream::python::PendingReply;

NB_MODULE(_native, m) {
    m.doc() = "Slipstream's C++ engine for the Python front end (use the slipstream package, not this module).";

    nb::class_<NativeApp>(m, "NativeApp")
        .def(
            "__init__",
            [](NativeApp* self, nb::dict options, nb::module_ runtime) {
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
        .def_prop_ro("port", &NativeApp::port);

    nb::class_<PendingReply>(m, "PendingReply")
        .def("finish", [](PendingReply& self, nb::handle result) { self.finish(result.ptr()); })
        .def("fail", [](PendingReply& self, nb::handle exc) { self.fail(exc.ptr()); })
        .def_prop_ro("done", &PendingReply::done);
}
