// PlanDesc: reads the Python plan records by kind and field name (and writes them back for the round-trip test).
#include "plan_desc.h"

#include <stdexcept>

#include <string_view>
#include "record_fields.h"

namespace slipstream::python {
namespace {

constexpr RecordFields F("plan description");

DefaultKind default_kind_of(PyObject* o, std::string_view what) {
    return static_cast<DefaultKind>(F.int_in(o, 0, 3, what));
}

std::unique_ptr<PlanDesc> read_item(PyObject* p, std::string_view what) {
    return std::make_unique<PlanDesc>(read_plan_desc(F.attr(p, "item", what).get()));
}

// slipstream._core.plan_desc.ModelField -> PlanField.
PlanField read_field(PyObject* f) {
    PlanField field;
    PyRef name = F.attr(f, "name", "model field");
    F.str_of(name.get(), "model field name");
    PyObject* interned = name.release();
    PyUnicode_InternInPlace(&interned);
    field.name = PyRef::steal(interned);
    field.key = F.str_of(F.attr(f, "key", "model field").get(), "model field key");
    field.plan = std::make_unique<PlanDesc>(read_plan_desc(F.attr(f, "plan", "model field").get()));
    field.default_kind = default_kind_of(F.attr(f, "default_kind", "model field").get(), "model field default_kind");
    field.default_value = F.attr(f, "default", "model field");
    return field;
}

// Sets dict[key] = value, taking the new reference `value` (nullptr: a Python exception is set).
bool put(PyObject* dict, const char* key, PyObject* value) {
    PyRef owned = PyRef::steal(value);
    return owned && PyDict_SetItemString(dict, key, owned.get()) == 0;
}

constexpr const char* kPlanKindNames[] = {"kAny",  "kInt",  "kFloat", "kOptional", "kList",
                                          "kDict", "kCall", "kModel", "kDefault"};
constexpr const char* kDefaultKindNames[] = {"kRequired", "kValue", "kFactory", "kCopy"};

PyObject* default_kind_name(DefaultKind kind) {
    return PyUnicode_FromString(kDefaultKindNames[static_cast<int>(kind)]);
}

PyObject* field_to_python(const PlanField& f) {
    PyRef out = PyRef::steal(PyDict_New());
    if (!out || !put(out.get(), "name", PyRef(f.name).release()) || !put(out.get(), "key", str_from(f.key)) ||
        !put(out.get(), "plan", plan_desc_to_python(*f.plan)) ||
        !put(out.get(), "default_kind", default_kind_name(f.default_kind)) ||
        !put(out.get(), "default", PyRef(f.default_value).release()))
        return nullptr;
    return out.release();
}

}  // namespace

PlanDesc read_plan_desc(PyObject* desc) {
    PlanDesc d;
    d.kind = static_cast<PlanKind>(F.int_in(F.attr(desc, "kind", "plan").get(), 0, 8, "plan kind"));
    switch (d.kind) {
        case PlanKind::kAny:
        case PlanKind::kInt:
        case PlanKind::kFloat:
            break;
        case PlanKind::kOptional:
        case PlanKind::kList:
        case PlanKind::kDict:
            d.item = read_item(desc, "plan");
            break;
        case PlanKind::kCall:
            d.target = F.attr(desc, "target", "call plan");
            if (!PyCallable_Check(d.target.get())) F.bad("call plan target", "is not callable");
            d.item = read_item(desc, "call plan");
            break;
        case PlanKind::kModel: {
            d.target = F.attr(desc, "cls", "model plan");
            if (!PyType_Check(d.target.get())) F.bad("model plan cls", "is not a class");
            PyRef fields = F.attr(desc, "fields", "model plan");
            if (!PyTuple_Check(fields.get())) F.bad("model plan fields", "must be a tuple");
            for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(fields.get()); ++i)
                d.fields.push_back(read_field(PyTuple_GET_ITEM(fields.get(), i)));
            break;
        }
        case PlanKind::kDefault:
            d.default_kind =
                default_kind_of(F.attr(desc, "default_kind", "default plan").get(), "default plan default_kind");
            d.default_value = F.attr(desc, "default", "default plan");
            d.item = read_item(desc, "default plan");
            break;
    }
    return d;
}

PyObject* plan_desc_to_python(const PlanDesc& d) {
    PyRef out = PyRef::steal(PyDict_New());
    if (!out || !put(out.get(), "kind", PyUnicode_FromString(kPlanKindNames[static_cast<int>(d.kind)]))) return nullptr;
    bool ok = true;
    switch (d.kind) {
        case PlanKind::kAny:
        case PlanKind::kInt:
        case PlanKind::kFloat:
            break;
        case PlanKind::kOptional:
        case PlanKind::kList:
        case PlanKind::kDict:
            ok = put(out.get(), "item", plan_desc_to_python(*d.item));
            break;
        case PlanKind::kCall:
            ok = put(out.get(), "target", PyRef(d.target).release()) &&
                 put(out.get(), "item", plan_desc_to_python(*d.item));
            break;
        case PlanKind::kModel: {
            PyRef fields = PyRef::steal(PyTuple_New(static_cast<Py_ssize_t>(d.fields.size())));
            for (std::size_t i = 0; fields && i < d.fields.size(); ++i) {
                PyObject* row = field_to_python(d.fields[i]);
                if (row == nullptr) return nullptr;
                PyTuple_SET_ITEM(fields.get(), static_cast<Py_ssize_t>(i), row);
            }
            ok = put(out.get(), "cls", PyRef(d.target).release()) && put(out.get(), "fields", fields.release());
            break;
        }
        case PlanKind::kDefault:
            ok = put(out.get(), "default_kind", default_kind_name(d.default_kind)) &&
                 put(out.get(), "default", PyRef(d.default_value).release()) &&
                 put(out.get(), "item", plan_desc_to_python(*d.item));
            break;
    }
    return ok ? out.release() : nullptr;
}

}  // namespace slipstream::python
