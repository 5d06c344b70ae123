// Record as a heap type with the CPython API: a row's values (a tuple) and its result's shared name index.
#include "py_record.h"

#include <Python.h>

#include "py_ref.h"

namespace nb = nanobind;

namespace slipstream::python {
namespace {

struct RecordObject {
    PyObject_HEAD PyObject* index;  // dict: name -> position of its first column (shared by a result's rows)
    PyObject* names;                // tuple of every column's name, in order (shared)
    PyObject* values;               // tuple
};

PyTypeObject* record_type = nullptr;

RecordObject* as_record(PyObject* self) {
    return reinterpret_cast<RecordObject*>(self);
}

// (index, names) for an iterable of names; false with the exception set.
bool index_of(PyObject* names_iterable, PyRef& index, PyRef& names) {
    names = PyRef::steal(PySequence_Tuple(names_iterable));
    if (!names) return false;
    index = PyRef::steal(PyDict_New());
    if (!index) return false;
    const Py_ssize_t n = PyTuple_GET_SIZE(names.get());
    for (Py_ssize_t i = 0; i < n; ++i) {
        PyRef pos = PyRef::steal(PyLong_FromSsize_t(i));
        if (!pos || PyDict_SetDefault(index.get(), PyTuple_GET_ITEM(names.get(), i), pos.get()) == nullptr)
            return false;
    }
    return true;
}

// A new Record over `values` (a tuple), taking new references to all three.
PyObject* new_record(PyObject* index, PyObject* names, PyObject* values) {
    RecordObject* r = PyObject_GC_New(RecordObject, record_type);
    if (r == nullptr) return nullptr;
    Py_INCREF(index);
    Py_INCREF(names);
    Py_INCREF(values);
    r->index = index;
    r->names = names;
    r->values = values;
    PyObject_GC_Track(reinterpret_cast<PyObject*>(r));
    return reinterpret_cast<PyObject*>(r);
}

PyObject* record_new(PyTypeObject*, PyObject* args, PyObject* kwargs) {
    PyObject* names_iterable = nullptr;
    PyObject* values = nullptr;
    static const char* kKeywords[] = {"names", "values", nullptr};
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OO:Record", const_cast<char**>(kKeywords), &names_iterable,
                                     &values))
        return nullptr;
    PyRef index, names;
    if (!index_of(names_iterable, index, names)) return nullptr;
    PyRef tuple = PyRef::steal(PySequence_Tuple(values));
    if (!tuple) return nullptr;
    return new_record(index.get(), names.get(), tuple.get());
}

int record_traverse(PyObject* self, visitproc visit, void* arg) {
    RecordObject* r = as_record(self);
    Py_VISIT(r->index);
    Py_VISIT(r->names);
    Py_VISIT(r->values);
    Py_VISIT(Py_TYPE(self));
    return 0;
}

int record_clear(PyObject* self) {
    RecordObject* r = as_record(self);
    Py_CLEAR(r->index);
    Py_CLEAR(r->names);
    Py_CLEAR(r->values);
    return 0;
}

void record_dealloc(PyObject* self) {
    PyTypeObject* type = Py_TYPE(self);
    PyObject_GC_UnTrack(self);
    record_clear(self);
    type->tp_free(self);
    Py_DECREF(type);
}

PyObject* record_subscript(PyObject* self, PyObject* key) {
    RecordObject* r = as_record(self);
    if (PyUnicode_Check(key)) {
        PyObject* pos = PyDict_GetItemWithError(r->index, key);
        if (pos == nullptr) {
            if (!PyErr_Occurred()) PyErr_SetObject(PyExc_KeyError, key);
            return nullptr;
        }
        PyObject* value = PyTuple_GET_ITEM(r->values, PyLong_AsSsize_t(pos));
        Py_INCREF(value);
        return value;
    }
    return PyObject_GetItem(r->values, key);
}

Py_ssize_t record_length(PyObject* self) {
    return PyTuple_GET_SIZE(as_record(self)->values);
}

int record_contains(PyObject* self, PyObject* name) {
    return PyDict_Contains(as_record(self)->index, name);
}

PyObject* record_iter(PyObject* self) {
    return PyObject_GetIter(as_record(self)->values);
}

Py_hash_t record_hash(PyObject* self) {
    return PyObject_Hash(as_record(self)->values);
}

PyObject* record_richcompare(PyObject* self, PyObject* other, int op) {
    if (op != Py_EQ && op != Py_NE) Py_RETURN_NOTIMPLEMENTED;
    RecordObject* r = as_record(self);
    int equal = 0;
    if (Py_TYPE(other) == record_type) {
        RecordObject* o = as_record(other);
        equal = PyObject_RichCompareBool(r->values, o->values, Py_EQ);
        if (equal == 1) equal = PyObject_RichCompareBool(r->names, o->names, Py_EQ);
    } else if (PyTuple_Check(other)) {
        equal = PyObject_RichCompareBool(r->values, other, Py_EQ);
    } else {
        Py_RETURN_NOTIMPLEMENTED;
    }
    if (equal < 0) return nullptr;
    return PyBool_FromLong((equal == 1) == (op == Py_EQ) ? 1 : 0);
}

PyObject* record_repr(PyObject* self) {
    RecordObject* r = as_record(self);
    const Py_ssize_t n = PyTuple_GET_SIZE(r->values);
    if (n == 0) return PyUnicode_FromString("<Record>");
    PyRef parts = PyRef::steal(PyList_New(0));
    if (!parts) return nullptr;
    for (Py_ssize_t i = 0; i < n; ++i) {
        PyRef part =
            PyRef::steal(PyUnicode_FromFormat("%S=%R", PyTuple_GET_ITEM(r->names, i), PyTuple_GET_ITEM(r->values, i)));
        if (!part || PyList_Append(parts.get(), part.get()) != 0) return nullptr;
    }
    PyRef space = PyRef::steal(PyUnicode_FromString(" "));
    if (!space) return nullptr;
    PyRef joined = PyRef::steal(PyUnicode_Join(space.get(), parts.get()));
    if (!joined) return nullptr;
    return PyUnicode_FromFormat("<Record %U>", joined.get());
}

PyObject* record_get(PyObject* self, PyObject* const* args, Py_ssize_t nargs) {
    if (nargs < 1 || nargs > 2) {
        PyErr_SetString(PyExc_TypeError, "get() takes a name and an optional default");
        return nullptr;
    }
    RecordObject* r = as_record(self);
    PyObject* pos = PyDict_GetItemWithError(r->index, args[0]);
    if (pos == nullptr) {
        if (PyErr_Occurred()) return nullptr;
        PyObject* fallback = nargs == 2 ? args[1] : Py_None;
        Py_INCREF(fallback);
        return fallback;
    }
    PyObject* value = PyTuple_GET_ITEM(r->values, PyLong_AsSsize_t(pos));
    Py_INCREF(value);
    return value;
}

PyObject* record_keys(PyObject* self, PyObject*) {
    return PyObject_GetIter(as_record(self)->names);
}

PyObject* record_values(PyObject* self, PyObject*) {
    return PyObject_GetIter(as_record(self)->values);
}

PyObject* record_items(PyObject* self, PyObject*) {
    RecordObject* r = as_record(self);
    const Py_ssize_t n = PyTuple_GET_SIZE(r->values);
    PyRef pairs = PyRef::steal(PyList_New(n));
    if (!pairs) return nullptr;
    for (Py_ssize_t i = 0; i < n; ++i) {
        PyObject* pair = PyTuple_Pack(2, PyTuple_GET_ITEM(r->names, i), PyTuple_GET_ITEM(r->values, i));
        if (pair == nullptr) return nullptr;
        PyList_SET_ITEM(pairs.get(), i, pair);
    }
    return PyObject_GetIter(pairs.get());
}

PyObject* record_reduce(PyObject* self, PyObject*) {
    RecordObject* r = as_record(self);
    return Py_BuildValue("(O(OO))", reinterpret_cast<PyObject*>(record_type), r->names, r->values);
}

PyObject* record_index(PyObject* self, void*) {
    PyObject* index = as_record(self)->index;
    Py_INCREF(index);
    return index;
}

PyMethodDef kRecordMethods[] = {
    {"get", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(record_get)), METH_FASTCALL,
     "The value of the first column named `name`, or `default`."},
    {"keys", record_keys, METH_NOARGS, "The column names, in order."},
    {"values", record_values, METH_NOARGS, "The values, in order."},
    {"items", record_items, METH_NOARGS, "(name, value) pairs, in order."},
    {"__reduce__", record_reduce, METH_NOARGS, nullptr},
    {nullptr, nullptr, 0, nullptr},
};

PyGetSetDef kRecordGetSet[] = {
    {"_index", record_index, nullptr, "name -> position, shared by the rows of one result", nullptr},
    {nullptr, nullptr, nullptr, nullptr, nullptr},
};

PyType_Slot kRecordSlots[] = {
    {Py_tp_doc, const_cast<char*>("One database row, read by column name or position (asyncpg.Record's behaviour).")},
    {Py_tp_new, reinterpret_cast<void*>(record_new)},
    {Py_tp_dealloc, reinterpret_cast<void*>(record_dealloc)},
    {Py_tp_traverse, reinterpret_cast<void*>(record_traverse)},
    {Py_tp_clear, reinterpret_cast<void*>(record_clear)},
    {Py_tp_repr, reinterpret_cast<void*>(record_repr)},
    {Py_tp_hash, reinterpret_cast<void*>(record_hash)},
    {Py_tp_richcompare, reinterpret_cast<void*>(record_richcompare)},
    {Py_tp_iter, reinterpret_cast<void*>(record_iter)},
    {Py_tp_methods, kRecordMethods},
    {Py_tp_getset, kRecordGetSet},
    {Py_mp_subscript, reinterpret_cast<void*>(record_subscript)},
    {Py_mp_length, reinterpret_cast<void*>(record_length)},
    {Py_sq_length, reinterpret_cast<void*>(record_length)},
    {Py_sq_contains, reinterpret_cast<void*>(record_contains)},
    {0, nullptr},
};

PyType_Spec kRecordSpec = {"slipstream._native.Record", sizeof(RecordObject), 0,
                           Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC, kRecordSlots};

PyObject* make_records(PyObject* names_iterable, PyObject* rows) {
    PyRef index, names;
    if (!index_of(names_iterable, index, names)) return nullptr;
    PyRef fast = PyRef::steal(PySequence_Fast(rows, "make_records: rows must be a sequence of tuples"));
    if (!fast) return nullptr;
    const Py_ssize_t n = PySequence_Fast_GET_SIZE(fast.get());
    PyObject** items = PySequence_Fast_ITEMS(fast.get());
    PyRef out = PyRef::steal(PyList_New(n));
    if (!out) return nullptr;
    for (Py_ssize_t i = 0; i < n; ++i) {
        if (!PyTuple_Check(items[i])) {
            PyErr_SetString(PyExc_TypeError, "make_records: a row must be a tuple");
            return nullptr;
        }
        PyObject* record = new_record(index.get(), names.get(), items[i]);
        if (record == nullptr) return nullptr;
        PyList_SET_ITEM(out.get(), i, record);
    }
    return out.release();
}

}  // namespace

void register_record(nb::module_& m) {
    PyObject* type = PyType_FromSpec(&kRecordSpec);
    if (type == nullptr) throw nb::python_error();
    record_type = reinterpret_cast<PyTypeObject*>(type);  // kept for the life of the process
    if (PyModule_AddObjectRef(m.ptr(), "Record", type) != 0) throw nb::python_error();
    m.def(
        "make_records",
        [](nb::handle names, nb::handle rows) {
            PyObject* out = make_records(names.ptr(), rows.ptr());
            if (out == nullptr) throw nb::python_error();
            return nb::steal(out);
        },
        nb::arg("names"), nb::arg("rows"));
}

}  // namespace slipstream::python
