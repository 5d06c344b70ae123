// AppContext: looks up the runtime helpers once.
#include "app_context.h"

#include <nanobind/nanobind.h>
#include <nanobind/stl/shared_ptr.h>

#include <stdexcept>
#include <string>

namespace slipstream::python {
namespace {

PyRef required_attr(PyObject* module, const char* name) {
    PyRef r = PyRef::steal(PyObject_GetAttrString(module, name));
    if (!r) {
        PyErr_Clear();
        throw std::runtime_error(std::string("slipstream._runtime lacks ") + name);
    }
    return r;
}

PyRef optional_attr(PyObject* module, const char* name) {
    PyRef r = PyRef::steal(PyObject_GetAttrString(module, name));
    if (!r) PyErr_Clear();
    return r;
}

}  // namespace

AppContext::AppContext(PyObject* runtime)
    : resume(required_attr(runtime, "resume")),
      handle_error(required_attr(runtime, "handle_error")),
      conversion_failed(required_attr(runtime, "conversion_failed")),
      make_request(required_attr(runtime, "make_request")),
      answer_forwarded(required_attr(runtime, "answer_forwarded")),
      render_name(PyRef::steal(PyUnicode_InternFromString("_slipstream_render"))),
      response_type(required_attr(runtime, "Response")),
      begin(optional_attr(runtime, "begin")),
      run_background(optional_attr(runtime, "run_background")),
      background_name(PyRef::steal(PyUnicode_InternFromString("background"))),
      encoder(required_attr(runtime, "encode_fallback").get(), required_attr(runtime, "model_plan").get()) {
    if (!begin) run_background = PyRef();
    new_host = optional_attr(runtime, "new_host");
    if (new_host) {
        PyRef tasks = PyRef::steal(PyImport_ImportModule("asyncio.tasks"));
        if (!tasks) throw nanobind::python_error();
        enter_task = optional_attr(tasks.get(), "_enter_task");
        leave_task = optional_attr(tasks.get(), "_leave_task");
        if (!enter_task || !leave_task) new_host = PyRef();  // an asyncio without them: steps run outside tasks
    }
    PyRef cancel = optional_attr(runtime, "cancel_on_disconnect");
    if (cancel && PyObject_IsTrue(cancel.get()) == 1) {
        disconnects = std::make_shared<Disconnects>();
        nanobind::object watched = nanobind::cast(disconnects);
        if (PyObject_SetAttrString(runtime, "disconnects", watched.ptr()) != 0) throw nanobind::python_error();
    }
}

}  // namespace slipstream::python
