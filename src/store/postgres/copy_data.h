// COPY data: the source and sink types of Connection::copy_in/copy_out, and sources over rows or bytes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "store/copy_text.h"
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

/// What a CopySource answers when its next piece is not ready yet (a producer on another thread is still making
/// it): the connection keeps the COPY open and pulls again once Connection::resume_copy() is called.
base::Status copy_data_pending();
bool is_copy_data_pending(const base::Status& status);

/// Receives copy_out's data as it arrives: one CopyData message per call (text and CSV: one row with its
/// newline). The view is valid during the call only. An error status stops delivery: the rest of the data is
/// read and dropped, and the callback hears that status. copy_data_pending() keeps the message but pauses: the
/// connection reads no more from its socket (the server waits) until Connection::resume_copy().
using CopySink = std::function<base::Status(std::string_view data)>;

/// Fills `row` (empty on entry) with the next row's values; false when there are no more rows.
using RowSource = std::function<bool(std::vector<Value>& row)>;

/// What a statement is as far as COPY goes: COPY ... FROM STDIN, COPY ... TO STDOUT, or anything else.
enum class CopyDirection : std::uint8_t { kNone, kIn, kOut };

/// A lexical look at `sql` (comments and quoted text skipped): kIn for `COPY ... FROM STDIN`, kOut for
/// `COPY ... TO STDOUT`, kNone for every other statement (COPY to or from a server file included).
CopyDirection copy_direction(std::string_view sql);

/// A CopySource that encodes the rows `next` gives (encode_copy_text_row), about `chunk_bytes` per piece.
CopySource copy_rows_from(RowSource next, std::size_t chunk_bytes = 64 * 1024);

/// A CopySource over rows held in memory (encode_copy_text_row), about `chunk_bytes` per piece.
CopySource copy_rows(std::vector<std::vector<Value>> rows, std::size_t chunk_bytes = 64 * 1024);

/// A CopySource over data already in the statement's format (whole rows or not), `chunk_bytes` per piece.
CopySource copy_bytes(std::string data, std::size_t chunk_bytes = 256 * 1024);

}  // namespace slipstream::store::postgres
