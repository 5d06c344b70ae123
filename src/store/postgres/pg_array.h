// PostgreSQL arrays in JSON: the element kind of each array type OID and the array literal parser/writer.
#pragma once

#include <libpq-fe.h>

#include <optional>
#include <string_view>

#include "base/status.h"
#include "json/writer.h"
#include "store/column_type.h"

namespace slipstream::store::postgres {

/// PostgreSQL's limit on array dimensions (MAXDIM); deeper literals are refused.
inline constexpr int kMaxArrayDepth = 6;

/// The element kind of a built-in array type OID (bool[], bytea[], int2/4/8[], oid[], float4/8[], numeric[],
/// text[], varchar[], bpchar[], name[], uuid[], date[], time[], timetz[], timestamp[], timestamptz[],
/// interval[], json[], jsonb[]); nullopt for every other OID (those arrays read as text).
std::optional<ColumnType> array_element_type(Oid oid);

/// Writes an array's text output (`{1,2,NULL}`, `{{"a b",NULL},{"\"",x}}`, `[0:1]={1,2}`, `{}`) as the
/// writer's next value: nested JSON arrays, unquoted NULL as null, each other element (quotes and backslash
/// escapes undone) through write_cell_json(`element`), bytea elements decoded first. Pure: no server needed.
/// Error: invalid_argument for a malformed literal or one nested deeper than kMaxArrayDepth; write_cell_json's
/// errors (out_of_range for a NaN or infinite float). On error the writer holds a partial value.
[[nodiscard]] base::Status write_array_json(json::Writer& writer, std::string_view text, ColumnType element);

}  // namespace slipstream::store::postgres
