// Row readers and the database-failure mapping of the session store.
#include "agent/sessions/session_rows.h"

#include <charconv>
#include <variant>

namespace slipstream::agent::sessions {

std::int64_t int_cell(const store::ResultSet& rows, std::size_t row, std::size_t col) {
    store::Value v = rows.value(row, col);
    if (const auto* i = std::get_if<std::int64_t>(&v)) return *i;
    std::string_view text = rows.text(row, col);
    std::int64_t out = 0;
    std::from_chars(text.data(), text.data() + text.size(), out);
    return out;
}

std::string text_cell(const store::ResultSet& rows, std::size_t row, std::size_t col) {
    return std::string(rows.text(row, col));
}

SessionInfo session_from_row(const store::ResultSet& rows, std::size_t row, std::size_t first) {
    SessionInfo s;
    s.id = text_cell(rows, row, first);
    s.owner = text_cell(rows, row, first + 1);
    s.metadata_json = text_cell(rows, row, first + 2);
    s.state_version = int_cell(rows, row, first + 3);
    s.last_seq = int_cell(rows, row, first + 4);
    s.ttl_ms = int_cell(rows, row, first + 5);
    s.created_at_ms = int_cell(rows, row, first + 6);
    s.updated_at_ms = int_cell(rows, row, first + 7);
    s.expires_at_ms = int_cell(rows, row, first + 8);
    return s;
}

SessionError error_from_status(const base::Status& status) {
    if (status.is_unavailable() || status.is_resource_exhausted() || status.is_timeout() || status.is_cancelled())
        return SessionError::unavailable(status.to_string());
    return SessionError::internal(status.to_string());
}

}  // namespace slipstream::agent::sessions
