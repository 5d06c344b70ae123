// ArgPlan: how one validated JSON value (from Request::arguments()) becomes the Python object a handler takes.
#pragma once

#include <Python.h>

#include <memory>
#include <string>
#include <vector>

#include "plan_desc.h"
#include "py_ref.h"
#include "slipstream/json_view.h"

namespace slipstream::python {

/// Built once per route parameter from a plan record made by slipstream/_plans.py (the PlanDesc contract,
/// plan_desc.h: one PlanKind per record, its fields read by name). A kDefault plan gives the default for a null
/// value (an absent optional parameter), made as its DefaultKind says, else converts with its item.
/// convert() runs on the executor thread with the GIL held; the value was already validated in C++.
class ArgPlan {
  public:
    /// Reads the plan record `desc` (read_plan_desc) and builds it, with the GIL held, at registration.
    /// Throws std::invalid_argument on a malformed description.
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
    // Builds the plan `desc` describes (its item plans too). Throws std::invalid_argument when copy.deepcopy
    // (DefaultKind::kCopy) or object.__new__ cannot be looked up.
    static std::unique_ptr<ArgPlan> from_desc(PlanDesc&& desc);
    static PyObject* make_default(const Field& f);

    PyObject* convert_model(JsonView v) const;

    PlanKind kind_ = PlanKind::kAny;
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
