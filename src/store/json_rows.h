// JSON output of result cells: the one place that decides how each column kind reads in JSON (fetch_json).
#pragma once

#include <string>
#include <string_view>

#include "base/status.h"
#include "json/writer.h"
#include "store/column_type.h"

namespace slipstream::store {

/// Writes one cell of kind `type` whose canonical bytes are `bytes` (column_type.h) as the writer's next value:
/// kNull null; kBool true/false; kInt the digits as a number; kFloat a number as Python's repr writes it;
/// kJson the JSON text itself with insignificant whitespace removed; kBytes a base64 string (RFC 4648, padded);
/// every other kind (numeric, text, uuid, dates, intervals) a string of its exact text, so numeric keeps every
/// digit. Error: out_of_range for a NaN or infinite float (not JSON), as json::Writer::number().
[[nodiscard]] base::Status write_cell_json(json::Writer& writer, ColumnType type, std::string_view bytes);

/// Appends `json` to `out` without whitespace outside strings (the writer's "," / ":" separators).
void append_compact_json(std::string& out, std::string_view json);

/// Appends standard base64 (with '=' padding) of `bytes` to `out`.
void append_base64(std::string& out, std::string_view bytes);

}  // namespace slipstream::store
