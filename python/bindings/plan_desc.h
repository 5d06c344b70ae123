// PlanDesc: the conversion-plan contract with the Python package (slipstream/_core/plan_desc.py), read once per arg.
#pragma once

#include <Python.h>

#include <memory>
#include <string>
#include <vector>

#include "py_ref.h"

namespace slipstream::python {

/// What a plan does with a validated JSON value: slipstream._core.plan_desc.PlanKind (same values).
enum class PlanKind : int {
    kAny = 0,       // plain conversion
    kInt = 1,       // a JSON float becomes an int
    kFloat = 2,     // a JSON integer becomes a float
    kOptional = 3,  // null stays None, else `item`
    kList = 4,      // each array item through `item`
    kDict = 5,      // each object value through `item`
    kCall = 6,      // `target(item's result)`
    kModel = 7,     // `target` (a pydantic model class) built from `fields` without validation
    kDefault = 8,   // null becomes the default, else `item`
};

/// How a default is made for an absent value: slipstream._core.plan_desc.DefaultKind (same values).
enum class DefaultKind : int {
    kRequired = 0,
    kValue = 1,    // shared (immutable)
    kFactory = 2,  // called
    kCopy = 3,     // deep-copied
};

struct PlanDesc;

/// One ModelField: a field of a kModel plan.
struct PlanField {
    PyRef name;       // interned str: the attribute
    std::string key;  // its key in the validated JSON object (the alias)
    std::unique_ptr<PlanDesc> plan;
    DefaultKind default_kind = DefaultKind::kRequired;
    PyRef default_value;  // kValue: the value; kFactory: the factory; kCopy: the value to deep-copy
};

/// One plan record (AnyPlan, IntPlan, ..., DefaultPlan); only the members of its kind are set.
struct PlanDesc {
    PlanKind kind = PlanKind::kAny;
    std::unique_ptr<PlanDesc> item;                     // kOptional, kList, kDict, kCall, kDefault: the inner plan
    PyRef target;                                       // kCall: the callable; kModel: the class
    std::vector<PlanField> fields;                      // kModel
    DefaultKind default_kind = DefaultKind::kRequired;  // kDefault
    PyRef default_value;                                // kDefault: as PlanField::default_value
};

/// Reads `desc` (a plan record, or any object with its attributes) and the plans inside it, with the GIL held, at
/// registration only. Throws std::invalid_argument naming the field on a malformed description.
PlanDesc read_plan_desc(PyObject* desc);

/// What read_plan_desc() read, back as plain Python values (a dict per plan holding only its kind's fields; enums
/// as their C++ names), for the contract's round-trip test. A new reference, or nullptr with a Python exception set.
PyObject* plan_desc_to_python(const PlanDesc& desc);

}  // namespace slipstream::python
