// JsonEncoder: Python return values -> JSON text, as FastAPI's jsonable_encoder + JSONResponse would write it.
#pragma once

#include <Python.h>

#include <string>
#include <unordered_map>

#include "py_ref.h"

namespace slipstream::python {

/// Walks dict/list/tuple/str/int/float/bool/None with the CPython API and appends compact JSON
/// (separators "," and ":", UTF-8 as is, like json.dumps(ensure_ascii=False)). pydantic models with plain
/// fields are walked field by field (by alias); anything else goes through `fallback` (slipstream/_encoders.py:
/// model_dump, dataclasses, datetime, UUID, Enum, Decimal, ...), which returns a JSON-compatible object.
/// Use from one thread with the GIL held. Not reentrant.
class JsonEncoder {
  public:
    /// `fallback(obj)` -> JSON-compatible object; `model_plan(cls)` -> tuple of (attribute, key[, True]) entries
    /// for a model that can be walked by its fields (True: a float field, an int there is written as a float),
    /// or None (then `fallback` dumps it).
    JsonEncoder(PyObject* fallback, PyObject* model_plan);

    /// Appends the JSON text of `obj` to `out`. Returns false with a Python exception set (non-finite float,
    /// unsupported type, nesting deeper than 512, a failing fallback); `out` may then hold a partial value.
    bool encode(PyObject* obj, std::string& out);

    /// Appends `s` as a JSON string literal (with quotes).
    static void append_string(std::string& out, const char* s, std::size_t n);

  private:
    bool encode_value(PyObject* obj, std::string& out, int depth);
    bool encode_dict(PyObject* obj, std::string& out, int depth);
    bool encode_sequence(PyObject* obj, std::string& out, int depth);
    bool encode_key(PyObject* key, std::string& out, int depth);
    bool encode_float(double d, std::string& out);
    bool encode_long(PyObject* obj, std::string& out);
    bool encode_model(PyObject* obj, std::string& out, int depth);
    bool encode_fallback(PyObject* obj, std::string& out, int depth);
    /// The cached walking plan of a model class (tuple) or None; nullptr on error.
    PyObject* plan_for(PyTypeObject* type);

    PyRef fallback_;
    PyRef model_plan_;
    PyRef base_model_;                                // pydantic.BaseModel, or null when pydantic is absent
    std::unordered_map<PyTypeObject*, PyRef> plans_;  // holds a reference to each class too (in the tuple)
    std::unordered_map<PyTypeObject*, PyRef> plan_types_;
};

}  // namespace slipstream::python
