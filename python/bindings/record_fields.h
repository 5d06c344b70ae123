// RecordFields: a package record's fields read by name, each error naming the contract and the field.
#pragma once

#include <Python.h>

#include <string>
#include <string_view>
#include <vector>

#include "py_ref.h"

namespace slipstream::python {

/// Errors are std::invalid_argument "<contract>: <what> <problem>" ("route description: param source is out of
/// range"), raised to Python as ValueError. Any Python error set on the way is cleared first.
class RecordFields {
  public:
    explicit constexpr RecordFields(std::string_view contract) : contract_(contract) {}

    [[noreturn]] void bad(std::string_view what, std::string_view problem) const;
    PyRef attr(PyObject* obj, const char* name, std::string_view what) const;
    std::string str_of(PyObject* o, std::string_view what) const;
    long long int_of(PyObject* o, std::string_view what) const;
    long long int_in(PyObject* o, long long lo, long long hi, std::string_view what) const;
    std::vector<PyObject*> items_of(PyObject* tuple, std::string_view what) const;

  private:
    std::string_view contract_;
};

/// A new str from UTF-8 bytes (nullptr with a Python error set on failure).
PyObject* str_from(const std::string& s);

}  // namespace slipstream::python
