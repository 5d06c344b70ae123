// copy_records_to_table's data: Python records straight to PostgreSQL's COPY text format (GIL held).
#pragma once

#include <Python.h>

#include <string>

namespace slipstream::python {

/// Appends each record of the iterable `records` to `out` as one COPY text line. A tuple or list is read by
/// position; with `columns` (a tuple of names, or None) a record that is an instance of `by_name_types` (a type or
/// tuple of types: Mapping, Record) is read by those names; anything else by position. A record must give
/// `width` values (else a ValueError). None, bool, int (64-bit), float and str are written directly; other
/// values as query parameters are converted (db_values.h). An error names the record ("record 3: ...").
/// False with the Python exception set.
bool encode_copy_records(PyObject* records, Py_ssize_t width, PyObject* columns, PyObject* by_name_types,
                         std::string& out);

}  // namespace slipstream::python
