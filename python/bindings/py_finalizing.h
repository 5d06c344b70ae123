// Whether the interpreter is finalizing (no thread may take the GIL any more), on every supported CPython:
// `Py_IsFinalizing` is public from 3.13, which removed the private `_Py_IsFinalizing` of earlier versions.
#pragma once

#include <Python.h>

namespace slipstream::python {

inline bool interpreter_finalizing() {
#if PY_VERSION_HEX >= 0x030D0000
    return Py_IsFinalizing() != 0;
#else
    return _Py_IsFinalizing() != 0;
#endif
}

}  // namespace slipstream::python
