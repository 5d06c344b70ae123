// RouteDesc: the route contract with the Python package (slipstream/_core/route_desc.py), read once per route.
#pragma once

#include <Python.h>

#include <cstddef>
#include <string>
#include <vector>

#include "py_ref.h"
#include "slipstream/route_spec.h"

namespace slipstream::python {

/// What one handler argument is: slipstream._core.route_desc.ArgKind (same values).
enum class ArgKind : int {
    kValue = 0,    // a validated value of Request::arguments(), converted by its plan
    kRequest = 1,  // the Request object
    kReply = 2,    // the PendingReply, always last: the handler answers through it
};

/// One ArgDesc: a keyword argument of the handler call.
struct ArgDesc {
    PyRef name;  // interned str
    ArgKind kind = ArgKind::kValue;
    std::size_t index = 0;  // kValue: position in Request::arguments()
    std::string key;        // kValue: its key there
    PyRef plan;             // kValue: its plan record (plan_desc.h), built into an ArgPlan by PyRoute
    PyRef loc;              // FastAPI's loc prefix of conversion errors (a tuple)
};

/// One RouteDesc: everything PyRoute needs, with the ParamDesc/BodyDesc rows as the RouteSpec they describe.
struct RouteDesc {
    PyRef handler;
    bool is_coroutine = false;
    int status_code = 200;
    PyRef prepare;  // None or a callable
    double cache_ttl_s = 0;
    std::vector<PyRef> path_params;  // str
    RouteSpec spec;                  // params, body, forward_errors
    std::vector<ArgDesc> args;
};

/// Reads every field of `desc` (a RouteDesc, or any object with its attributes) with the GIL held, at
/// registration only. Throws std::invalid_argument naming the field on a malformed description.
RouteDesc read_route_desc(PyObject* desc);

/// What read_route_desc() read, back as plain Python values (a dict; enums as their C++ names), for the
/// contract's round-trip test. A new reference, or nullptr with a Python exception set.
PyObject* route_desc_to_python(const RouteDesc& desc);

}  // namespace slipstream::python
