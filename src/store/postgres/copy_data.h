// COPY data: the source and sink types of Connection::copy_in/copy_out and the COPY text-format row codec.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "store/db_result.h"
#include "store/value.h"

namespace slipstream::store::postgres {

/// copy_in / copy_out's value: the rows the server copied (its command tag's count).
using CopyResult = DbResult<std::uint64_t>;
using CopyCallback = std::function<void(CopyResult result)>;

/// Gives copy_in its data, pulled as the socket drains (so memory stays bounded by one chunk): appends the next
/// piece of COPY data in the statement's format to `out` (empty on entry; rows may span pieces). Ok with `out`
/// still empty ends the data; an error status aborts the COPY (CopyFail: the server rolls the COPY back) and is
/// what the callback hears. Called on the loop thread, never after the callback.
using CopySource = std::function<base::Status(std::string& out)>;

/// Receives copy_out's data as it arrives: one CopyData message per call (text and CSV: one row with its
/// newline). The view is valid during the call only. An error status stops delivery: the rest of the data is
/// read and dropped, and the callback hears that status.
using CopySink = std::function<base::Status(std::string_view data)>;

/// Fills `row` (empty on entry) with the next row's values; false when there are no more rows.
using RowSource = std::function<bool(std::vector<Value>& row)>;

/// What a statement is as far as COPY goes: COPY ... FROM STDIN, COPY ... TO STDOUT, or anything else.
enum class CopyDirection : std::uint8_t { kNone, kIn, kOut };

/// A lexical look at `sql` (comments and quoted text skipped): kIn for `COPY ... FROM STDIN`, kOut for
/// `COPY ... TO STDOUT`, kNone for every other statement (COPY to or from a server file included).
CopyDirection copy_direction(std::string_view sql);

/// Appends `row` to `out` as one line of COPY text format: fields separated by tabs, NULL as \N, backslash, tab,
/// newline and carriage return escaped; bool t/f, integers in decimal, doubles in shortest round-trip form
/// (NaN, Infinity, -Infinity as PostgreSQL spells them), bytes in bytea's hex form (\\x...). Text must not
/// contain NUL bytes (PostgreSQL refuses them; the server reports the error).
void encode_copy_text_row(const std::vector<Value>& row, std::string& out);

/// Parses one line of COPY text format (`line` with or without its newline) into `fields`: std::monostate for
/// \N, else the field's text with the escapes undone (\b \f \n \r \t \v \\, octal \NNN, hex \xHH, any other
/// escaped byte as itself). False for a line ending in a lone backslash.
bool parse_copy_text_row(std::string_view line, std::vector<Value>& fields);

/// A CopySource that encodes the rows `next` gives (encode_copy_text_row), about `chunk_bytes` per piece.
CopySource copy_rows_from(RowSource next, std::size_t chunk_bytes = 64 * 1024);

/// A CopySource over rows held in memory (encode_copy_text_row), about `chunk_bytes` per piece.
CopySource copy_rows(std::vector<std::vector<Value>> rows, std::size_t chunk_bytes = 64 * 1024);

}  // namespace slipstream::store::postgres
