// GIL-free JSON text helpers: Python's repr(float), string escaping, and a JsonView writer.
#pragma once

#include <cstddef>
#include <string>

#include "slipstream/json_view.h"

namespace slipstream::python {

/// Appends repr(d) as Python writes it ("0.1", "2.0", "1e+16", "1e-05", "-0.0"). `d` must be finite.
void append_double_repr(std::string& out, double d);

/// Appends `s` (valid UTF-8) as a JSON string literal, escaped as json.dumps(ensure_ascii=False) does.
void append_json_string(std::string& out, const char* s, std::size_t n);

/// Appends the compact JSON text of `v` (separators "," and ":"), as json.dumps would write the parsed value.
/// Recursive (depth bounded by the parser's limit). Thread-safe; needs no GIL.
void append_json(std::string& out, JsonView v);

}  // namespace slipstream::python
