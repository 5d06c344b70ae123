// Validated JSON -> Python objects for handler arguments; pydantic models are built without re-validation.
#include "arg_plan.h"

#include <stdexcept>
#include <string>
#include <string_view>

namespace slipstream::python {
namespace {

PyObject* str_from(std::string_view s) {
    return PyUnicode_DecodeUTF8(s.data(), static_cast<Py_ssize_t>(s.size()), "surrogatepass");
}

// copy.deepcopy for a DefaultKind::kCopy default, else nothing.
PyRef deepcopy_for(DefaultKind kind) {
    if (kind != DefaultKind::kCopy) return {};
    PyRef copy_module = PyRef::steal(PyImport_ImportModule("copy"));
    PyRef deepcopy = PyRef::steal(copy_module ? PyObject_GetAttrString(copy_module.get(), "deepcopy") : nullptr);
    if (!deepcopy) {
        PyErr_Clear();
        throw std::invalid_argument("argument plan: cannot import copy.deepcopy");
    }
    return deepcopy;
}

// An integer beyond 64 bits from its exact decimal text (at most 4300 digits: json/ refuses longer ones).
PyObject* long_from_decimal(std::string_view digits) {
    std::string text(digits);
    return PyLong_FromString(text.c_str(), nullptr, 10);
}

PyRef interned(const char* s) {
    return PyRef::steal(PyUnicode_InternFromString(s));
}

}  // namespace

PyObject* json_to_python(JsonView v) {
    switch (v.kind()) {
        case JsonView::Kind::kNull:
            Py_RETURN_NONE;
        case JsonView::Kind::kBool:
            if (v.as_bool()) Py_RETURN_TRUE;
            Py_RETURN_FALSE;
        case JsonView::Kind::kInt:
            return PyLong_FromLongLong(v.as_int());
        case JsonView::Kind::kUint:
            return PyLong_FromUnsignedLongLong(v.as_uint());
        case JsonView::Kind::kBigInt:
            return long_from_decimal(v.as_decimal());
        case JsonView::Kind::kDouble:
            return PyFloat_FromDouble(v.as_double());
        case JsonView::Kind::kString:
            return str_from(v.as_string());
        case JsonView::Kind::kArray: {
            PyObject* list = PyList_New(static_cast<Py_ssize_t>(v.size()));
            if (list == nullptr) return nullptr;
            for (std::size_t i = 0; i < v.size(); ++i) {
                PyObject* item = json_to_python(v.at(i));
                if (item == nullptr) {
                    Py_DECREF(list);
                    return nullptr;
                }
                PyList_SET_ITEM(list, static_cast<Py_ssize_t>(i), item);
            }
            return list;
        }
        case JsonView::Kind::kObject: {
            PyObject* dict = PyDict_New();
            if (dict == nullptr) return nullptr;
            for (std::size_t i = 0; i < v.size(); ++i) {
                auto [key, value] = v.member(i);
                PyRef k = PyRef::steal(str_from(key));
                PyRef item = PyRef::steal(k ? json_to_python(value) : nullptr);
                if (!item || PyDict_SetItem(dict, k.get(), item.get()) < 0) {
                    Py_DECREF(dict);
                    return nullptr;
                }
            }
            return dict;
        }
    }
    Py_RETURN_NONE;
}

std::unique_ptr<ArgPlan> ArgPlan::from_description(PyObject* desc) {
    return from_desc(read_plan_desc(desc));
}

std::unique_ptr<ArgPlan> ArgPlan::from_desc(PlanDesc&& desc) {
    auto plan = std::make_unique<ArgPlan>();
    plan->kind_ = desc.kind;
    if (desc.item) plan->item_ = from_desc(std::move(*desc.item));
    plan->target_ = std::move(desc.target);
    if (desc.kind == PlanKind::kDefault) {
        plan->default_ = std::make_unique<Field>();
        plan->default_->default_kind = desc.default_kind;
        plan->default_->default_value = std::move(desc.default_value);
        plan->default_->deepcopy = deepcopy_for(desc.default_kind);
    } else if (desc.kind == PlanKind::kModel) {
        for (PlanField& f : desc.fields) {
            Field field;
            field.name = std::move(f.name);
            field.key = std::move(f.key);
            field.plan = from_desc(std::move(*f.plan));
            field.default_kind = f.default_kind;
            field.default_value = std::move(f.default_value);
            field.deepcopy = deepcopy_for(f.default_kind);
            plan->fields_.push_back(std::move(field));
        }
        plan->new_ = PyRef::steal(PyObject_GetAttrString(reinterpret_cast<PyObject*>(&PyBaseObject_Type), "__new__"));
        plan->dict_name_ = interned("__dict__");
        plan->fields_set_name_ = interned("__pydantic_fields_set__");
        plan->extra_name_ = interned("__pydantic_extra__");
        plan->private_name_ = interned("__pydantic_private__");
        if (!plan->new_ || !plan->dict_name_ || !plan->fields_set_name_ || !plan->extra_name_ || !plan->private_name_) {
            PyErr_Clear();
            throw std::invalid_argument("argument plan: cannot prepare the model builder");
        }
    }
    return plan;
}

PyObject* ArgPlan::convert(JsonView v) const {
    switch (kind_) {
        case PlanKind::kAny:
            return json_to_python(v);
        case PlanKind::kInt:
            if (v.kind() == JsonView::Kind::kDouble) return PyLong_FromDouble(v.as_double());
            return json_to_python(v);
        case PlanKind::kFloat:
            if (v.kind() == JsonView::Kind::kInt || v.kind() == JsonView::Kind::kUint ||
                v.kind() == JsonView::Kind::kBigInt)
                return PyFloat_FromDouble(v.as_double());
            return json_to_python(v);
        case PlanKind::kOptional:
            if (v.is_null()) Py_RETURN_NONE;
            return item_->convert(v);
        case PlanKind::kList: {
            if (v.kind() != JsonView::Kind::kArray) return json_to_python(v);
            PyObject* list = PyList_New(static_cast<Py_ssize_t>(v.size()));
            if (list == nullptr) return nullptr;
            for (std::size_t i = 0; i < v.size(); ++i) {
                PyObject* item = item_->convert(v.at(i));
                if (item == nullptr) {
                    Py_DECREF(list);
                    return nullptr;
                }
                PyList_SET_ITEM(list, static_cast<Py_ssize_t>(i), item);
            }
            return list;
        }
        case PlanKind::kDict: {
            if (v.kind() != JsonView::Kind::kObject) return json_to_python(v);
            PyObject* dict = PyDict_New();
            if (dict == nullptr) return nullptr;
            for (std::size_t i = 0; i < v.size(); ++i) {
                auto [key, value] = v.member(i);
                PyRef k = PyRef::steal(str_from(key));
                PyRef item = PyRef::steal(k ? item_->convert(value) : nullptr);
                if (!item || PyDict_SetItem(dict, k.get(), item.get()) < 0) {
                    Py_DECREF(dict);
                    return nullptr;
                }
            }
            return dict;
        }
        case PlanKind::kCall: {
            PyRef inner = PyRef::steal(item_->convert(v));
            if (!inner) return nullptr;
            PyObject* arg = inner.get();
            return PyObject_Vectorcall(target_.get(), &arg, 1, nullptr);
        }
        case PlanKind::kModel:
            return convert_model(v);
        case PlanKind::kDefault:
            if (v.is_null()) return make_default(*default_);
            return item_->convert(v);
    }
    return json_to_python(v);
}

PyObject* ArgPlan::make_default(const Field& f) {
    if (f.default_kind == DefaultKind::kFactory) return PyObject_CallNoArgs(f.default_value.get());
    if (f.default_kind == DefaultKind::kCopy) {
        PyObject* arg = f.default_value.get();
        return PyObject_Vectorcall(f.deepcopy.get(), &arg, 1, nullptr);
    }
    return PyRef(f.default_value).release();
}

// pydantic's model_construct(): __dict__ from the validated data (defaults for absent fields), no validation.
PyObject* ArgPlan::convert_model(JsonView v) const {
    if (v.kind() != JsonView::Kind::kObject) return json_to_python(v);
    PyObject* cls = target_.get();
    PyRef obj = PyRef::steal(PyObject_Vectorcall(new_.get(), &cls, 1, nullptr));
    PyRef values = PyRef::steal(obj ? PyDict_New() : nullptr);
    PyRef fields_set = PyRef::steal(values ? PySet_New(nullptr) : nullptr);
    if (!fields_set) return nullptr;
    for (const Field& f : fields_) {
        PyRef value;
        if (v.has(f.key)) {
            value = PyRef::steal(f.plan->convert(v.get(f.key)));
            if (!value || PySet_Add(fields_set.get(), f.name.get()) < 0) return nullptr;
        } else if (f.default_kind == DefaultKind::kRequired) {
            continue;  // required: validation guaranteed presence; never reached
        } else {
            value = PyRef::steal(make_default(f));
        }
        if (!value || PyDict_SetItem(values.get(), f.name.get(), value.get()) < 0) return nullptr;
    }
    if (PyObject_GenericSetAttr(obj.get(), dict_name_.get(), values.get()) < 0 ||
        PyObject_GenericSetAttr(obj.get(), fields_set_name_.get(), fields_set.get()) < 0 ||
        PyObject_GenericSetAttr(obj.get(), extra_name_.get(), Py_None) < 0 ||
        PyObject_GenericSetAttr(obj.get(), private_name_.get(), Py_None) < 0)
        return nullptr;
    return obj.release();
}

}  // namespace slipstream::python
