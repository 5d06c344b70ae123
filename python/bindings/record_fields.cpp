// RecordFields: typed reads of record attributes with errors that name the field.
#include "record_fields.h"

#include <stdexcept>

namespace slipstream::python {

void RecordFields::bad(std::string_view what, std::string_view problem) const {
    PyErr_Clear();
    throw std::invalid_argument(std::string(contract_) + ": " + std::string(what) + " " + std::string(problem));
}

PyRef RecordFields::attr(PyObject* obj, const char* name, std::string_view what) const {
    PyRef r = PyRef::steal(PyObject_GetAttrString(obj, name));
    if (!r) bad(what, std::string("lacks '") + name + "'");
    return r;
}

std::string RecordFields::str_of(PyObject* o, std::string_view what) const {
    Py_ssize_t n = 0;
    const char* s = PyUnicode_Check(o) ? PyUnicode_AsUTF8AndSize(o, &n) : nullptr;
    if (s == nullptr) bad(what, "must be a str");
    return {s, static_cast<std::size_t>(n)};
}

long long RecordFields::int_of(PyObject* o, std::string_view what) const {
    long long v = PyLong_Check(o) ? PyLong_AsLongLong(o) : -1;
    if (!PyLong_Check(o) || PyErr_Occurred()) bad(what, "must be an int");
    return v;
}

long long RecordFields::int_in(PyObject* o, long long lo, long long hi, std::string_view what) const {
    long long v = int_of(o, what);
    if (v < lo || v > hi) bad(what, "is out of range");
    return v;
}

std::vector<PyObject*> RecordFields::items_of(PyObject* tuple, std::string_view what) const {
    if (!PyTuple_Check(tuple)) bad(what, "must be a tuple");
    std::vector<PyObject*> out;
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(tuple); ++i)
        out.push_back(PyTuple_GET_ITEM(tuple, i));
    return out;
}

PyObject* str_from(const std::string& s) {
    return PyUnicode_FromStringAndSize(s.data(), static_cast<Py_ssize_t>(s.size()));
}

}  // namespace slipstream::python
