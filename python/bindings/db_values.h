// Python values <-> the store's values: query parameters in, rows and errors out (GIL held throughout).
#pragma once

#include <Python.h>

#include "store/db_result.h"
#include "store/result_set.h"
#include "store/value.h"

#include <vector>

namespace slipstream::python {

/// Types and helpers looked up once per process (never freed: the extension lives until the interpreter ends).
struct ParamTypes {
    PyObject* decimal = nullptr;      // decimal.Decimal
    PyObject* uuid = nullptr;         // uuid.UUID
    PyObject* json_dumps = nullptr;   // json.dumps
    PyObject* json_kwargs = nullptr;  // compact separators, ensure_ascii=False
};
/// Them, imported at the first call (with this file's datetime C API); nullptr with the Python error set.
const ParamTypes* param_types();

/// The statement parameters of a Python sequence: None, bool, int (int64 range, else ValueError), float, str,
/// bytes/bytearray/memoryview (binary), Decimal and UUID (their text), date/datetime/time (isoformat()),
/// timedelta (interval text "D days S seconds U microseconds"), dict/list/tuple (JSON text). Anything else is a
/// TypeError naming the parameter ("$2"). Returns false with the Python exception set.
bool params_from_python(PyObject* sequence, store::Params& out);

/// One parameter (`index` names it in errors: "query parameter $1: ..."), converted as params_from_python does.
bool value_from_python(PyObject* obj, std::size_t index, store::Value& out);

/// Prefixes the pending Python exception's message with "record N: " (same type).
void prefix_record_error(std::size_t record);

/// A query's answer as (columns, rows, affected_rows, command): columns a tuple of (name, kind) where kind is
/// column_type_name() (an array column: its element kind's name + "[]"); rows a list of tuples whose cells are
/// None, bool, int, float, str or bytes (every kind without a Python type of its own here, numeric, uuid, dates,
/// interval, json, is its text; the package converts those by the column's kind), or for an array column nested
/// lists of those. New reference; nullptr with the exception set.
PyObject* query_payload(const store::ResultSet& result);

/// A failed statement as (status, message, sqlstate, detail, hint, position, native_code, connection_lost,
/// from_statement): status is status_code_name() of the Status ("timeout", "unavailable", ...); message the
/// server's (or the driver's) reason; from_statement whether the DbError came with the failure (false for a
/// pool or session refusal, e.g. no connection free in time). New reference; nullptr with the exception set.
PyObject* error_payload(const base::Status& status, const store::DbError& error);

}  // namespace slipstream::python
