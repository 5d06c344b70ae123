// PostgreSQL arrays: the element kind of each array type OID, and the array literal parser (to cells, to JSON).
#pragma once

#include <libpq-fe.h>

#include <optional>
#include <string_view>

#include "base/status.h"
#include "json/writer.h"
#include "store/array_cell.h"
#include "store/column_type.h"

namespace slipstream::store::postgres {

/// The element kind of a built-in array type OID (bool[], bytea[], int2/4/8[], oid[], float4/8[], numeric[],
/// text[], varchar[], bpchar[], name[], uuid[], date[], time[], timetz[], timestamp[], timestamptz[],
/// interval[], json[], jsonb[]); nullopt for every other OID (those arrays read as text).
std::optional<ColumnType> array_element_type(Oid oid);

/// Parses an array's text output (`{1,2,NULL}`, `{{"a b",NULL},{"\"",x}}`, `[0:1]={1,2}`, `{}`) into an array
/// cell (store/array_cell.h) appended to `cell`: NULL as null, each other element's text with quotes and
/// backslash escapes undone, bytea elements decoded. invalid_argument for a malformed literal or one nested
/// deeper than kMaxArrayDepth (then `cell` holds a partial value).
[[nodiscard]] base::Status parse_array_literal(std::string_view text, ColumnType element, std::string& cell);

/// Writes an array's text output (`{1,2,NULL}`, `{{"a b",NULL},{"\"",x}}`, `[0:1]={1,2}`, `{}`) as the
/// writer's next value: nested JSON arrays, unquoted NULL as null, each other element (quotes and backslash
/// escapes undone) through write_cell_json(`element`), bytea elements decoded first. Pure: no server needed.
/// Error: invalid_argument for a malformed literal or one nested deeper than kMaxArrayDepth; write_cell_json's
/// errors (out_of_range for a NaN or infinite float). On error the writer holds a partial value.
[[nodiscard]] base::Status write_array_json(json::Writer& writer, std::string_view text, ColumnType element);

}  // namespace slipstream::store::postgres
