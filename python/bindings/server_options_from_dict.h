// Reads ServerOptions from a Python dict of field names.
#pragma once

#include <Python.h>

#include "slipstream/server_options.h"

namespace slipstream::python {

/// Every key must name a ServerOptions field; values are int, bool or str as the field is.
/// Throws std::invalid_argument naming the key on an unknown key or a wrong value.
ServerOptions server_options_from_dict(PyObject* options);

}  // namespace slipstream::python
