// Python records to COPY text lines without a store::Value per cell for the common types.
#include "copy_records.h"

#include <charconv>
#include <cstdint>
#include <string_view>

#include "db_values.h"
#include "py_ref.h"
#include "store/copy_text.h"
#include "store/value.h"

namespace slipstream::python {
namespace {

// One field; false with the exception set ("query parameter $N: ...", N = column + 1).
bool append_field(PyObject* obj, std::size_t column, std::string& out) {
    if (obj == Py_None) {
        out += "\\N";
        return true;
    }
    if (obj == Py_True || obj == Py_False) {
        out.push_back(obj == Py_True ? 't' : 'f');
        return true;
    }
    if (PyLong_CheckExact(obj)) {
        int overflow = 0;
        long long v = PyLong_AsLongLongAndOverflow(obj, &overflow);
        if (overflow == 0 && !(v == -1 && PyErr_Occurred())) {
            char buf[24];
            auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
            out.append(buf, end);
            return true;
        }
        PyErr_Clear();  // the general conversion reports it
    } else if (PyFloat_CheckExact(obj)) {
        store::append_copy_text_double(PyFloat_AS_DOUBLE(obj), out);
        return true;
    } else if (PyUnicode_CheckExact(obj)) {
        Py_ssize_t n = 0;
        const char* s = PyUnicode_AsUTF8AndSize(obj, &n);
        if (s == nullptr) return false;
        store::append_copy_text_escaped(std::string_view(s, static_cast<std::size_t>(n)), out);
        return true;
    }
    store::Value value;
    if (!value_from_python(obj, column, value)) return false;
    store::encode_copy_text_value(value, out);
    return true;
}

bool wrong_width(Py_ssize_t got, Py_ssize_t width) {
    PyErr_Format(PyExc_ValueError, "copy_records_to_table: a record has %zd values, expected %zd", got, width);
    return false;
}

bool append_by_position(PyObject* record, Py_ssize_t width, std::string& out) {
    PyRef fast = PyRef::steal(PySequence_Fast(record, "copy_records_to_table: a record must be a sequence"));
    if (!fast) return false;
    const Py_ssize_t n = PySequence_Fast_GET_SIZE(fast.get());
    if (n != width) return wrong_width(n, width);
    PyObject** items = PySequence_Fast_ITEMS(fast.get());
    for (Py_ssize_t i = 0; i < n; ++i) {
        if (i > 0) out.push_back('\t');
        if (!append_field(items[i], static_cast<std::size_t>(i), out)) return false;
    }
    out.push_back('\n');
    return true;
}

bool append_by_name(PyObject* record, PyObject* columns, std::string& out) {
    const Py_ssize_t n = PyTuple_GET_SIZE(columns);
    for (Py_ssize_t i = 0; i < n; ++i) {
        if (i > 0) out.push_back('\t');
        PyRef value = PyRef::steal(PyObject_GetItem(record, PyTuple_GET_ITEM(columns, i)));
        if (!value || !append_field(value.get(), static_cast<std::size_t>(i), out)) return false;
    }
    out.push_back('\n');
    return true;
}

}  // namespace

bool encode_copy_records(PyObject* records, Py_ssize_t width, PyObject* columns, PyObject* by_name_types,
                         std::string& out) {
    const bool named = columns != Py_None;
    if (named && !PyTuple_Check(columns)) {
        PyErr_SetString(PyExc_TypeError, "copy_records_to_table: columns must be a tuple of names");
        return false;
    }
    PyRef it = PyRef::steal(PyObject_GetIter(records));
    if (!it) return false;
    for (std::size_t index = 0;; ++index) {
        PyRef record = PyRef::steal(PyIter_Next(it.get()));
        if (!record) return !PyErr_Occurred();
        bool ok = false;
        if (PyTuple_Check(record.get()) || PyList_Check(record.get()) || !named) {
            ok = append_by_position(record.get(), width, out);
        } else {
            int by_name = PyObject_IsInstance(record.get(), by_name_types);
            if (by_name < 0) return false;
            ok = by_name == 1 ? append_by_name(record.get(), columns, out)
                              : append_by_position(record.get(), width, out);
        }
        if (!ok) {
            prefix_record_error(index);
            return false;
        }
    }
}

}  // namespace slipstream::python
