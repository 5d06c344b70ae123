// Record: one database row (asyncpg.Record's behaviour) as a C type, made in bulk from a result's tuples.
#pragma once

#include <nanobind/nanobind.h>

namespace slipstream::python {

/// Adds to the module:
/// - `Record(names, values)`: `names` an iterable of column names (a dict's keys in order too), `values` a tuple.
///   Read by name (`r["id"]`, the first column of a duplicated name) or position/slice (`r[0]`, `r[0:2]`);
///   `get()`, `keys()`, `values()`, `items()`, `len()`, iteration over the values, `in` over the names; equal to
///   a Record with the same names and values or to a tuple of the same values; hashed as its values; pickled as
///   (names, values); repr `<Record id=1 name='a'>`.
/// - `make_records(names, rows)`: a list of Records over `rows` (a list of tuples) sharing one name index.
void register_record(nanobind::module_& m);

}  // namespace slipstream::python
