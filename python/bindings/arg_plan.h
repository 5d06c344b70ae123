// ArgPlan: how one validated JSON value (from Request::arguments()) becomes the Python object a handler takes.
#pragma once

#include <Python.h>

#include <memory>
#include <string>
#include <vector>

#include "py_ref.h"
#include "route_desc.h"
#include "slipstream/json_view.h"

namespace slipstream::python {

/// Built once per route parameter from a description tuple made by slipstream/_plans.py:
///   ("any",) ("int",) ("float",) ("optional", p) ("list", p) ("dict", p) ("call", fn, p)
///   ("model", cls, ((name, key, p, default_kind, default), ...))   ("default", default_kind, default, p)
/// default_kind: a DefaultKind (route_desc.h): required, value (shared, immutable), factory (called), deep-copied.
/// "default" gives the default for a null value (an absent optional parameter), else converts with p.
/// convert() runs on the executor thread with the GIL held; the value was already validated in C++.
class ArgPlan {
  public:
    enum class Kind { kAny, kInt, kFloat, kOptional, kList, kDict, kCall, kModel, kDefault };

    /// Throws std::invalid_argument on a malformed description (registration time).
    static std::unique_ptr<ArgPlan> from_description(PyObject* desc);

    /// A new reference, or nullptr with a Python exception set.
    PyObject* convert(JsonView v) const;

  private:
    struct Field {
        PyRef name;       // attribute name (interned str)
        std::string key;  // key in the validated JSON object (the alias)
        std::unique_ptr<ArgPlan> plan;
        DefaultKind default_kind = DefaultKind::kRequired;
        PyRef default_value;
        PyRef deepcopy;  // copy.deepcopy, for DefaultKind::kCopy
    };
    static PyObject* make_default(const Field& f);

    PyObject* convert_model(JsonView v) const;

    Kind kind_ = Kind::kAny;
    std::unique_ptr<ArgPlan> item_;
    PyRef target_;  // kCall: the callable; kModel: the class
    std::vector<Field> fields_;
    std::unique_ptr<Field> default_;  // kDefault
    PyRef new_;                       // kModel: object.__new__
    PyRef dict_name_, fields_set_name_, extra_name_, private_name_;
};

/// Plain conversion: null/bool/int/float/str/list/dict. A new reference, or nullptr with an exception set.
PyObject* json_to_python(JsonView v);

}  // namespace slipstream::python
