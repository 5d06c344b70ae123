// Reading the store's rows (cells to numbers and SessionInfo) and turning database failures into SessionErrors.
#pragma once

#include <cstdint>
#include <string>

#include "agent/sessions/session_error.h"
#include "agent/sessions/session_types.h"
#include "base/status.h"
#include "store/result_set.h"

namespace slipstream::agent::sessions {

/// The columns session_from_row() reads, in its order, for a SELECT list.
inline constexpr const char* kSessionColumns =
    "id, owner, metadata, state_version, last_seq, ttl_ms, created_at, updated_at, expires_at";

/// An integer cell (BIGINT on both backends); 0 for NULL.
std::int64_t int_cell(const store::ResultSet& rows, std::size_t row, std::size_t col);
std::string text_cell(const store::ResultSet& rows, std::size_t row, std::size_t col);

/// Row `row` of a SELECT of kSessionColumns, starting at column `first`.
SessionInfo session_from_row(const store::ResultSet& rows, std::size_t row, std::size_t first = 0);

/// A failed statement as the store's error: unreachable, busy or timed out -> kUnavailable; anything else
/// kInternal (the database's message is for logs, never for clients).
SessionError error_from_status(const base::Status& status);

}  // namespace slipstream::agent::sessions
