// Python objects -> compact JSON, byte-identical to Starlette's JSONResponse over FastAPI's jsonable_encoder.
#include "json_encoder.h"

#include <cmath>
#include <cstdio>
#include <cstring>

#include "json_text.h"

namespace slipstream::python {
namespace {

constexpr int kMaxDepth = 512;

}  // namespace

JsonEncoder::JsonEncoder(PyObject* fallback, PyObject* model_plan)
    : fallback_(PyRef::borrow(fallback)), model_plan_(PyRef::borrow(model_plan)) {
    PyRef pydantic = PyRef::steal(PyImport_ImportModule("pydantic"));
    if (pydantic) {
        base_model_ = PyRef::steal(PyObject_GetAttrString(pydantic.get(), "BaseModel"));
    }
    PyErr_Clear();
}

void JsonEncoder::append_string(std::string& out, const char* s, std::size_t n) {
    append_json_string(out, s, n);
}

bool JsonEncoder::encode(PyObject* obj, std::string& out) {
    return encode_value(obj, out, 0);
}

bool JsonEncoder::encode_float(double d, std::string& out) {
    if (!std::isfinite(d)) {
        PyErr_SetString(PyExc_ValueError, "Out of range float values are not JSON compliant");
        return false;
    }
    append_double_repr(out, d);  // Python's repr(float)
    return true;
}

bool JsonEncoder::encode_long(PyObject* obj, std::string& out) {
    int overflow = 0;
    long long v = PyLong_AsLongLongAndOverflow(obj, &overflow);
    if (overflow == 0) {
        if (v == -1 && PyErr_Occurred()) return false;
        char buf[24];
        int n = std::snprintf(buf, sizeof buf, "%lld", v);
        out.append(buf, static_cast<std::size_t>(n));
        return true;
    }
    PyRef text = PyRef::steal(PyLong_Type.tp_repr(obj));
    if (!text) return false;
    Py_ssize_t n = 0;
    const char* s = PyUnicode_AsUTF8AndSize(text.get(), &n);
    if (s == nullptr) return false;
    out.append(s, static_cast<std::size_t>(n));
    return true;
}

bool JsonEncoder::encode_value(PyObject* obj, std::string& out, int depth) {
    if (depth > kMaxDepth) {
        PyErr_SetString(PyExc_RecursionError, "maximum recursion depth exceeded while encoding a JSON object");
        return false;
    }
    if (PyUnicode_CheckExact(obj)) {
        Py_ssize_t n = 0;
        const char* s = PyUnicode_AsUTF8AndSize(obj, &n);
        if (s == nullptr) return false;
        append_string(out, s, static_cast<std::size_t>(n));
        return true;
    }
    if (obj == Py_None) {
        out.append("null", 4);
        return true;
    }
    if (obj == Py_True) {
        out.append("true", 4);
        return true;
    }
    if (obj == Py_False) {
        out.append("false", 5);
        return true;
    }
    if (PyLong_CheckExact(obj)) return encode_long(obj, out);
    if (PyFloat_CheckExact(obj)) return encode_float(PyFloat_AS_DOUBLE(obj), out);
    if (PyDict_CheckExact(obj)) return encode_dict(obj, out, depth);
    if (PyList_CheckExact(obj) || PyTuple_CheckExact(obj)) return encode_sequence(obj, out, depth);
    if (base_model_) {
        int is_model = PyObject_IsInstance(obj, base_model_.get());
        if (is_model < 0) return false;
        if (is_model) return encode_model(obj, out, depth);
    }
    return encode_fallback(obj, out, depth);
}

bool JsonEncoder::encode_key(PyObject* key, std::string& out, int depth) {
    if (PyUnicode_Check(key) && PyUnicode_CheckExact(key)) {
        Py_ssize_t n = 0;
        const char* s = PyUnicode_AsUTF8AndSize(key, &n);
        if (s == nullptr) return false;
        append_string(out, s, static_cast<std::size_t>(n));
        return true;
    }
    // json.dumps turns int/float/bool/None keys into strings; anything else is encoded first (Enum -> value).
    std::string text;
    if (key == Py_True || key == Py_False || key == Py_None || PyLong_CheckExact(key) || PyFloat_CheckExact(key)) {
        if (!encode_value(key, text, depth + 1)) return false;
        append_string(out, text.data(), text.size());
        return true;
    }
    PyObject* arg = key;
    PyRef plain = PyRef::steal(PyObject_Vectorcall(fallback_.get(), &arg, 1, nullptr));
    if (!plain) return false;
    if (Py_TYPE(plain.get()) == Py_TYPE(key)) {
        PyErr_Format(PyExc_TypeError, "keys must be str, int, float, bool or None, not %s", Py_TYPE(key)->tp_name);
        return false;
    }
    return encode_key(plain.get(), out, depth + 1);
}

bool JsonEncoder::encode_dict(PyObject* obj, std::string& out, int depth) {
    out.push_back('{');
    Py_ssize_t pos = 0;
    PyObject* key = nullptr;
    PyObject* value = nullptr;
    bool first = true;
    while (PyDict_Next(obj, &pos, &key, &value)) {
        if (!first) out.push_back(',');
        first = false;
        // Borrowed references: keep them alive if a fallback runs Python code that mutates the dict.
        PyRef k = PyRef::borrow(key), v = PyRef::borrow(value);
        if (!encode_key(k.get(), out, depth)) return false;
        out.push_back(':');
        if (!encode_value(v.get(), out, depth + 1)) return false;
    }
    out.push_back('}');
    return true;
}

bool JsonEncoder::encode_sequence(PyObject* obj, std::string& out, int depth) {
    out.push_back('[');
    Py_ssize_t n = PySequence_Fast_GET_SIZE(obj);
    for (Py_ssize_t i = 0; i < n; ++i) {
        if (i > 0) out.push_back(',');
        PyRef item = PyRef::borrow(PySequence_Fast_GET_ITEM(obj, i));
        if (!encode_value(item.get(), out, depth + 1)) return false;
    }
    out.push_back(']');
    return true;
}

PyObject* JsonEncoder::plan_for(PyTypeObject* type) {
    auto it = plans_.find(type);
    if (it != plans_.end()) return it->second.get();
    PyObject* arg = reinterpret_cast<PyObject*>(type);
    PyRef plan = PyRef::steal(PyObject_Vectorcall(model_plan_.get(), &arg, 1, nullptr));
    if (!plan) return nullptr;
    if (plan.get() != Py_None && !PyTuple_Check(plan.get())) {
        PyErr_SetString(PyExc_TypeError, "model plan must be a tuple or None");
        return nullptr;
    }
    plan_types_.emplace(type, PyRef::borrow(arg));  // keeps the class alive while its pointer is a key
    return plans_.emplace(type, std::move(plan)).first->second.get();
}

// A model whose fields are plain: its __dict__ values by alias, in field order; else model_dump(mode="json").
bool JsonEncoder::encode_model(PyObject* obj, std::string& out, int depth) {
    PyObject* plan = plan_for(Py_TYPE(obj));
    if (plan == nullptr) return false;
    if (plan == Py_None) return encode_fallback(obj, out, depth);
    PyRef dict_ref = PyRef::steal(PyObject_GenericGetDict(obj, nullptr));
    if (!dict_ref) return false;
    PyObject* dict = dict_ref.get();
    if (!PyDict_Check(dict)) return encode_fallback(obj, out, depth);
    std::size_t start = out.size();
    out.push_back('{');
    Py_ssize_t n = PyTuple_GET_SIZE(plan);
    for (Py_ssize_t i = 0; i < n; ++i) {
        PyObject* entry = PyTuple_GET_ITEM(plan, i);  // (attribute, quoted JSON key[, float field])
        PyObject* value = PyDict_GetItemWithError(dict, PyTuple_GET_ITEM(entry, 0));
        if (value == nullptr) {
            if (PyErr_Occurred()) return false;
            out.resize(start);  // a field without a value (model_construct without defaults): let pydantic decide
            return encode_fallback(obj, out, depth);
        }
        if (i > 0) out.push_back(',');
        Py_ssize_t klen = 0;
        const char* key = PyUnicode_AsUTF8AndSize(PyTuple_GET_ITEM(entry, 1), &klen);
        if (key == nullptr) return false;
        out.append(key, static_cast<std::size_t>(klen));
        out.push_back(':');
        PyRef v = PyRef::borrow(value);
        if (PyTuple_GET_SIZE(entry) > 2 && PyLong_CheckExact(value)) {  // a float field holding an int: 200.0
            double d = PyLong_AsDouble(value);
            if (d != -1.0 || !PyErr_Occurred()) {
                if (!encode_float(d, out)) return false;
                continue;
            }
            PyErr_Clear();  // beyond a double: written as the int it is
        }
        if (!encode_value(v.get(), out, depth + 1)) return false;
    }
    out.push_back('}');
    return true;
}

bool JsonEncoder::encode_fallback(PyObject* obj, std::string& out, int depth) {
    PyObject* arg = obj;
    PyRef plain = PyRef::steal(PyObject_Vectorcall(fallback_.get(), &arg, 1, nullptr));
    if (!plain) return false;
    if (Py_TYPE(plain.get()) == Py_TYPE(obj) && !PyDict_CheckExact(obj) && !PyList_CheckExact(obj)) {
        PyErr_Format(PyExc_TypeError, "Object of type %s is not JSON serializable", Py_TYPE(obj)->tp_name);
        return false;
    }
    return encode_value(plain.get(), out, depth + 1);
}

}  // namespace slipstream::python
