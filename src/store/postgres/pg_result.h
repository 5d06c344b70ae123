// Conversions from libpq's results: column kinds by type OID, rows to a ResultSet or to JSON, typed errors.
#pragma once

#include <libpq-fe.h>

#include <string>
#include <string_view>

#include "base/status.h"
#include "store/column_type.h"
#include "store/db_result.h"
#include "store/result_set.h"

namespace slipstream::store::postgres {

/// The kind of a PostgreSQL type OID (built-in types; anything else reads as kText).
ColumnType column_type_for_oid(Oid oid);

/// Decodes bytea's text output (hex "\x00ff", or the 'escape' form) into raw bytes appended to `out`. False on
/// malformed input.
bool decode_bytea(std::string_view text, std::string& out);

/// Decodes bytea's hex text output ("\x00ff") into raw bytes appended to `out`. False on malformed input.
bool decode_bytea_hex(std::string_view text, std::string& out);

/// A text-format PGRES_TUPLES_OK / PGRES_COMMAND_OK result as a ResultSet (bytea decoded, command tag and
/// affected rows kept).
ResultSet to_result_set(const PGresult* result);

/// A text-format PGRES_TUPLES_OK result as a JSON array of one object per row (keys: column names, values:
/// write_cell_json; arrays of the built-in types as nested JSON arrays, pg_array.h). Error: out_of_range for a
/// NaN/infinite float, invalid_argument for a malformed cell.
base::Status append_rows_json(const PGresult* result, std::string& out);

/// The server's error fields (SQLSTATE, primary message, detail, hint, statement position) of an error result.
DbError to_db_error(const PGresult* result);

/// libpq's connection-level message (PQerrorMessage) without its trailing newline.
std::string connection_message(const PGconn* conn);

}  // namespace slipstream::store::postgres
