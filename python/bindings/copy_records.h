// copy_records_to_table's data: Python records straight to PostgreSQL's COPY text or binary format (GIL held).
#pragma once

#include <Python.h>

#include <cstdint>
#include <string>
#include <vector>

namespace slipstream::python {

/// Appends each record of the iterable `records` to `out` as one COPY text line. A tuple or list is read by
/// position; with `columns` (a tuple of names, or None) a record that is an instance of `by_name_types` (a type or
/// tuple of types: Mapping, Record) is read by those names; anything else by position. A record must give
/// `width` values (else a ValueError). None, bool, int (64-bit), float and str are written directly; other
/// values as query parameters are converted (db_values.h). An error names the record ("record 3: ...").
/// False with the Python exception set.
bool encode_copy_records(PyObject* records, Py_ssize_t width, PyObject* columns, PyObject* by_name_types,
                         std::string& out);

/// The same records in PostgreSQL's binary COPY format (`COPY ... FROM STDIN WITH (FORMAT binary)`), for a table
/// whose columns have the type OIDs `oids` (one per column, in order). 1: done; 0: not possible, `out` to be
/// discarded (a type without a binary form here: only bool, int2/4/8, float4/8, text, varchar, bpchar, name,
/// bytea, json, jsonb have one; or a value that is not the column's own Python type: None, bool, int in range,
/// float or int, str without NUL, bytes); -1: a Python error, set and naming the record, as encode_copy_records.
/// `header` / `trailer`: whether `out` starts the data (the signature) / ends it (the end marker): a COPY sent in
/// pieces has the first with the header and the last with the trailer; `first_record` numbers the records in
/// errors (the piece's place in the whole).
int encode_copy_records_binary(PyObject* records, Py_ssize_t width, PyObject* columns, PyObject* by_name_types,
                               const std::vector<std::uint32_t>& oids, bool header, bool trailer,
                               std::size_t first_record, std::string& out);

}  // namespace slipstream::python
