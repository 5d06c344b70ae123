// PyRef: an owning reference to a Python object, for bindings code that uses the CPython API directly.
#pragma once

#include <Python.h>

#include <utility>

namespace slipstream::python {

/// Owns one strong reference. Destroy, reset or assign only while holding the GIL.
class PyRef {
  public:
    PyRef() = default;
    /// Takes ownership of a new reference (nullptr allowed).
    static PyRef steal(PyObject* o) {
        PyRef r;
        r.obj_ = o;
        return r;
    }
    /// Adds a reference to a borrowed one.
    static PyRef borrow(PyObject* o) {
        Py_XINCREF(o);
        return steal(o);
    }
    PyRef(const PyRef& o) : obj_(o.obj_) { Py_XINCREF(obj_); }
    PyRef(PyRef&& o) noexcept : obj_(std::exchange(o.obj_, nullptr)) {}
    PyRef& operator=(PyRef o) noexcept {
        std::swap(obj_, o.obj_);
        return *this;
    }
    ~PyRef() { Py_XDECREF(obj_); }

    PyObject* get() const { return obj_; }
    /// Gives up ownership: the caller now owns the reference.
    PyObject* release() { return std::exchange(obj_, nullptr); }
    explicit operator bool() const { return obj_ != nullptr; }

  private:
    PyObject* obj_ = nullptr;
};

}  // namespace slipstream::python
