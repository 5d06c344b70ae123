// NativeStreamValidator: agent/structured's StreamValidator for the Python package (slipstream.structured).
#pragma once

#include <nanobind/nanobind.h>

namespace slipstream::python {

/// Adds `NativeStreamValidator(schema_json, max_depth, max_string_bytes)` to the module: `feed(bytes | str)` and
/// `finish()` -> 0 partial, 1 complete (and valid), 2 invalid; `failure()` -> (offset, pointer, keyword, message)
/// or None; `snapshot()` -> (JSON text of the value so far or None, [JSON pointers of incomplete values]);
/// `snapshot_value()` -> the same with the value as Python objects: one live object updated in place by every
/// feed() (built from the validator's accepted events), not a copy.
/// A schema that is not JSON or does not compile raises ValueError.
void register_structured(nanobind::module_& m);

}  // namespace slipstream::python
