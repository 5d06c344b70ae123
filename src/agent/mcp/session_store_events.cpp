// SessionStore: the events of resumable streams (table mcp_events), for Last-Event-ID on any process.
#include <utility>

#include "agent/mcp/session_store.h"
#include "agent/sessions/database_thread.h"
#include "agent/sessions/sql_text.h"
#include "store/database/database.h"

namespace slipstream::mcp::detail {

namespace sessions = agent::sessions;

namespace {

std::int64_t int_of(const store::ResultSet& rows, std::size_t row, std::size_t col) {
    const std::string text(rows.text(row, col));
    return text.empty() ? 0 : std::stoll(text);
}

}  // namespace

void SessionStore::append_events(const std::string& session_id, const std::string& stream,
                                 std::vector<StoredEvent> events, std::uint64_t drop_through,
                                 std::function<void(Outcome)> done) {
    if (drop_through != 0)
        db_->query(sessions::sql_for(db_->backend(),
                                     "DELETE FROM mcp_events WHERE session_id = $1 AND stream = $2 AND seq <= $3"),
                   {session_id, stream, static_cast<std::int64_t>(drop_through)},
                   [](store::QueryResult) { sessions::mark_database_thread(); });
    if (events.empty()) {
        if (done) done(Outcome::kOk);
        return;
    }
    // One row of six parameters per event: ($1, $2, $3, $4, $5, $6), ($7, ...
    std::string values;
    store::Params params;
    const std::int64_t now = wall_ms();
    for (std::size_t i = 0; i < events.size(); ++i) {
        const std::size_t p = i * 6;
        values += i ? ", (" : "(";
        for (std::size_t k = 1; k <= 6; ++k)
            values += "$" + std::to_string(p + k) + (k < 6 ? ", " : ")");
        StoredEvent& e = events[i];
        params.emplace_back(session_id);
        params.emplace_back(stream);
        params.emplace_back(static_cast<std::int64_t>(e.seq));
        params.emplace_back(std::move(e.data));
        params.emplace_back(std::int64_t{e.final ? 1 : 0});
        params.emplace_back(now);
    }
    const std::string insert = "INSERT INTO mcp_events (session_id, stream, seq, data, final, created_at) VALUES " +
                               values + " ON CONFLICT DO NOTHING";
    // PostgreSQL: the same statement NOTIFYs the readers (delivered at its commit, once the rows are visible).
    const std::string sql = db_->backend() == store::Backend::kPostgres
                                ? "WITH s AS (" + insert + " RETURNING seq) SELECT pg_notify('mcp_events', $" +
                                      std::to_string(params.size() + 1) + ") FROM (SELECT 1 FROM s LIMIT 1) t"
                                : insert;
    if (db_->backend() == store::Backend::kPostgres) params.emplace_back(session_id);
    db_->query(sessions::sql_for(db_->backend(), sql), std::move(params),
               [done = std::move(done)](store::QueryResult r) {
                   sessions::mark_database_thread();
                   if (done) done(r.is_ok() ? Outcome::kOk : Outcome::kUnavailable);
               });
}

void SessionStore::read_events(const std::string& session_id, const std::string& stream, std::uint64_t from,
                               std::size_t limit, std::function<void(Outcome, std::vector<StoredEvent>)> done) {
    const std::string sql = sessions::sql_for(db_->backend(),
                                              "SELECT seq, data, final, created_at FROM mcp_events WHERE session_id = "
                                              "$1 AND stream = $2 AND seq >= $3 ORDER BY seq LIMIT $4");
    db_->query(sql, {session_id, stream, static_cast<std::int64_t>(from), static_cast<std::int64_t>(limit)},
               [done = std::move(done)](store::QueryResult r) {
                   sessions::mark_database_thread();
                   if (!r.is_ok()) return done(Outcome::kUnavailable, {});
                   std::vector<StoredEvent> out;
                   out.reserve(r->row_count());
                   for (std::size_t i = 0; i < r->row_count(); ++i)
                       out.push_back(StoredEvent{static_cast<std::uint64_t>(int_of(r.value(), i, 0)),
                                                 std::string(r->text(i, 1)), int_of(r.value(), i, 2) != 0,
                                                 int_of(r.value(), i, 3)});
                   done(Outcome::kOk, std::move(out));
               });
}

void SessionStore::stream_known(const std::string& session_id, const std::string& stream,
                                std::function<void(Outcome, bool, std::int64_t)> done) {
    const std::string sql = sessions::sql_for(
        db_->backend(), "SELECT COUNT(*), MAX(created_at) FROM mcp_events WHERE session_id = $1 AND stream = $2");
    db_->query(sql, {session_id, stream}, [done = std::move(done)](store::QueryResult r) {
        sessions::mark_database_thread();
        if (!r.is_ok() || r->row_count() == 0) return done(Outcome::kUnavailable, false, 0);
        const bool known = int_of(r.value(), 0, 0) > 0;
        done(Outcome::kOk, known, known ? int_of(r.value(), 0, 1) : 0);
    });
}

bool SessionStore::watch_events(std::function<void()> on_event) {
    if (db_->backend() != store::Backend::kPostgres) return false;
    on_event_ = std::move(on_event);
    return true;
}

}  // namespace slipstream::mcp::detail
