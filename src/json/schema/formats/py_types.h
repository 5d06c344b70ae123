// pydantic's readings of UUID, datetime, date, time and Decimal values (lax mode), with its error texts.
#pragma once

#include <string>
#include <string_view>

#include "json/value.h"

namespace slipstream::json::schema::formats {

/// The Python types whose JSON Schema (string + format) says less than pydantic checks. `_schema.py` marks
/// them with the vendor keyword "x-slipstream-pytype": "uuid" | "datetime" | "date" | "time" | "decimal".
enum class PyType { kUuid, kDatetime, kDate, kTime, kDecimal };

/// The type named `name`; false for an unknown name.
bool find_py_type(std::string_view name, PyType* out);

/// A failure as pydantic reports it: `type`, `msg`, and ctx {"error": error} when `error` is not empty.
struct PyTypeFailure {
    std::string_view type;  // static storage
    std::string msg;
    std::string error;
};

/// True when pydantic (lax mode, validate_python on the parsed JSON or the parameter's text) accepts `v` as
/// `type`; otherwise fills `*failure` when it is not null. Linear in the input; no allocation when valid.
bool check_py_value(PyType type, const json::Value& v, PyTypeFailure* failure);

}  // namespace slipstream::json::schema::formats
