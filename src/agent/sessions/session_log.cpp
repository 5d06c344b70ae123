// SessionStore's event log: append (one transaction in one hop, idempotent with a key) and events after a cursor.
#include <algorithm>
#include <chrono>
#include <unordered_map>

#include "agent/sessions/database_thread.h"
#include "agent/sessions/json_merge_patch.h"
#include "agent/sessions/session_rows.h"
#include "agent/sessions/session_store.h"
#include "agent/sessions/sql_text.h"

namespace slipstream::agent::sessions {

namespace {

constexpr std::size_t kMaxRoleBytes = 64;
constexpr std::size_t kMaxIdempotencyKeyBytes = 255;

// Checks and compacts each event; the first refusal is the answer.
std::optional<SessionError> prepare_events(std::vector<NewEvent>& events, const std::string& key,
                                           const SessionLimits& limits) {
    if (events.empty()) return SessionError::invalid("no events to append");
    if (events.size() > limits.max_batch_events)
        return SessionError::over_limit(
            "batch_events", limits.max_batch_events,
            "more than " + std::to_string(limits.max_batch_events) + " events in one append");
    if (key.size() > kMaxIdempotencyKeyBytes)
        return SessionError::invalid("the idempotency key is longer than " + std::to_string(kMaxIdempotencyKeyBytes) +
                                     " bytes");
    for (std::size_t i = 0; i < events.size(); ++i) {
        NewEvent& e = events[i];
        const std::string which = "event " + std::to_string(i);
        if (e.role.empty() || e.role.size() > kMaxRoleBytes)
            return SessionError::invalid(which + ": role must be 1.." + std::to_string(kMaxRoleBytes) + " bytes");
        base::Result<std::string> content = compact_json(e.content_json);
        if (!content.is_ok()) return SessionError::invalid(which + ": content is not JSON");
        e.content_json = std::move(content).value();
        if (e.role.size() + e.content_json.size() > limits.max_event_bytes)
            return SessionError::over_limit(
                "event_bytes", limits.max_event_bytes,
                which + " is larger than " + std::to_string(limits.max_event_bytes) + " bytes");
    }
    return std::nullopt;
}

// INSERT of every event: ($1 session, $2 time) shared, three parameters per row after them.
std::string insert_events_sql(std::size_t n) {
    std::string sql = "INSERT INTO agent_session_events (session_id, seq, role, content, created_at) VALUES ";
    for (std::size_t i = 0; i < n; ++i) {
        const std::size_t p = 3 + 3 * i;
        if (i > 0) sql += ", ";
        sql += "($1, $" + std::to_string(p) + ", $" + std::to_string(p + 1) + ", $" + std::to_string(p + 2) + ", $2)";
    }
    return sql;
}

// The SQL of one append on SQLite, with ?n placeholders, made once.
const std::string& sqlite_sql(const char* sql_with_dollars) {
    static thread_local std::unordered_map<const char*, std::string> adapted;
    auto [it, added] = adapted.try_emplace(sql_with_dollars);
    if (added) it->second = sql_for(store::Backend::kSqlite, sql_with_dollars);
    return it->second;
}

constexpr const char* kReserveRange =
    "UPDATE agent_sessions SET last_seq = last_seq + $3, updated_at = $2, expires_at = $2 + ttl_ms "
    "WHERE id = $1 AND expires_at > $2 RETURNING owner, last_seq";
constexpr const char* kFindKey =
    "SELECT first_seq, last_seq FROM agent_session_appends WHERE session_id = $1 AND idempotency_key = $2";
constexpr const char* kInsertKey =
    "INSERT INTO agent_session_appends (session_id, idempotency_key, first_seq, last_seq) VALUES ($1, $2, $3, $4)";

// SQLite: the whole append in one hop on the write connection's thread, a member of the running group commit:
// take the session's row (locked by the write transaction) and reserve the range, answer a known idempotency key
// with the original range (undone), check the limit, insert the events and the key; answered after the COMMIT.
class SqliteAppend final : public SyncWork {
  public:
    SqliteAppend(SessionStore::AppendRequest job, std::uint64_t max_events)
        : job_(std::move(job)), max_events_(max_events) {}

    bool run(store::SyncStatements& db) override {
        const auto n = static_cast<std::int64_t>(job_.events.size());
        store::QueryResult reserved = db.query(sqlite_sql(kReserveRange), {job_.id, job_.now, n});
        if (!reserved.is_ok()) return refuse(error_from_status(reserved.status()));
        if (reserved->row_count() == 0) return refuse(SessionError::not_found());
        if (reserved->text(0, 0) != job_.owner) return refuse(SessionError::forbidden());
        const std::int64_t last = int_cell(reserved.value(), 0, 1);
        if (!job_.key.empty()) {
            store::QueryResult known = db.query(sqlite_sql(kFindKey), {job_.id, job_.key});
            if (!known.is_ok()) return refuse(error_from_status(known.status()));
            if (known->row_count() > 0)
                return refuse(AppendResult{int_cell(known.value(), 0, 0), int_cell(known.value(), 0, 1), true});
        }
        if (last > static_cast<std::int64_t>(max_events_)) return refuse(SessionError::too_many_events(max_events_));
        range_ = AppendResult{last - n + 1, last, false};
        store::Params params{job_.id, job_.now};
        params.reserve(2 + 3 * job_.events.size());
        for (std::size_t i = 0; i < job_.events.size(); ++i) {
            params.emplace_back(range_.first_seq + static_cast<std::int64_t>(i));
            params.emplace_back(std::move(job_.events[i].role));
            params.emplace_back(std::move(job_.events[i].content_json));
        }
        store::QueryResult inserted =
            db.query(sql_for(store::Backend::kSqlite, insert_events_sql(job_.events.size())), params);
        if (!inserted.is_ok()) return refuse(error_from_status(inserted.status()));
        if (!job_.key.empty()) {
            store::QueryResult keyed =
                db.query(sqlite_sql(kInsertKey), {job_.id, job_.key, range_.first_seq, range_.last_seq});
            if (!keyed.is_ok()) return refuse(error_from_status(keyed.status()));
        }
        return true;
    }

    void finished(base::Status status) override {
        if (!status.is_ok()) return job_.done(error_from_status(status));
        job_.done(range_);
    }

  private:
    // The member is undone; this is its answer.
    bool refuse(SessionResult<AppendResult> answer) {
        job_.done(std::move(answer));
        return false;
    }

    SessionStore::AppendRequest job_;
    std::uint64_t max_events_;
    AppendResult range_{};
};

}  // namespace

void SessionStore::append(std::string owner, std::string id, std::vector<NewEvent> events, std::string idempotency_key,
                          SessionCallback<AppendResult> answer) {
    if (std::optional<SessionError> refused = prepare_events(events, idempotency_key, options_.limits))
        return answer(std::move(*refused));
    answer = counted_append(std::move(answer), events.size());
    if (!buffer_ && db_->backend() == store::Backend::kPostgres) {
        // One statement, alone or with others waiting (postgres_append.cpp): committed, and its NOTIFY sent,
        // before the answer.
        return submit_postgres(PgAppend{
            std::make_shared<AppendRequest>(AppendRequest{std::move(owner), std::move(id), std::move(events),
                                                          std::move(idempotency_key), now_ms(), std::move(answer)}),
            kAppendAttempts});
    }
    // Committed (or, buffered, queued): the followers hear of it before the writer's answer goes out.
    SessionCallback<AppendResult> done = [self = shared_from_this(), id, answer](SessionResult<AppendResult> r) {
        if (r.is_ok() && !r.value().replayed) self->announce(id, r.value().last_seq);
        answer(std::move(r));
    };
    if (buffer_)
        return buffer_->append(std::move(owner), std::move(id), std::move(events), std::move(idempotency_key), now_ms(),
                               options_.limits.max_events_per_session, std::move(done));
    runner_->run_on_thread(
        std::make_shared<SqliteAppend>(AppendRequest{std::move(owner), std::move(id), std::move(events),
                                                     std::move(idempotency_key), now_ms(), std::move(done)},
                                       options_.limits.max_events_per_session));
}

SessionCallback<AppendResult> SessionStore::counted_append(SessionCallback<AppendResult> answer, std::size_t events) {
    const auto started = std::chrono::steady_clock::now();
    return [stats_ref = stats_, latency = append_latency_, answer = std::move(answer), events,
            started](SessionResult<AppendResult> r) {
        SessionStats& stats = *stats_ref;
        if (r.is_ok() && r.value().replayed) {
            stats.replayed.fetch_add(1, std::memory_order_relaxed);
        } else if (r.is_ok()) {
            stats.appends.fetch_add(1, std::memory_order_relaxed);
            stats.events.fetch_add(events, std::memory_order_relaxed);
        } else if (r.error().code == SessionErrorCode::kBusy) {
            stats.refused_busy.fetch_add(1, std::memory_order_relaxed);
        }
        latency.observe(std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count());
        answer(std::move(r));
    };
}

void SessionStore::events(std::string owner, std::string id, std::int64_t after, std::size_t limit,
                          SessionCallback<EventPage> done) {
    // Buffered: what is queued, taken before the read (a flush committing in between is then in one or the other).
    WriteBehind::Pending queued = buffer_ ? buffer_->pending(id, after) : WriteBehind::Pending{};
    // One statement: the session row (owner, newest seq) joined with the page of events (none: one row of NULLs).
    query(
        "SELECT s.owner, s.last_seq, e.seq, e.role, e.content, e.created_at FROM agent_sessions s LEFT JOIN "
        "agent_session_events e ON e.session_id = s.id AND e.seq > $2 WHERE s.id = $1 AND s.expires_at > $3 "
        "ORDER BY e.seq LIMIT $4",
        {std::move(id), after, now_ms(), static_cast<std::int64_t>(std::max<std::size_t>(limit, 1))},
        [owner = std::move(owner), after, limit, queued = std::move(queued), done](store::QueryResult r) {
            if (!r.is_ok()) return done(error_from_status(r.status()));
            if (r->row_count() == 0) return done(SessionError::not_found());
            if (r->text(0, 0) != owner) return done(SessionError::forbidden());
            EventPage page;
            page.last_seq = int_cell(r.value(), 0, 1);
            for (std::size_t i = 0; i < r->row_count() && page.events.size() < limit; ++i) {
                if (r->is_null(i, 2)) continue;
                page.events.push_back(EventRecord{int_cell(r.value(), i, 2), text_cell(r.value(), i, 3),
                                                  text_cell(r.value(), i, 4), int_cell(r.value(), i, 5)});
            }
            std::int64_t newest = page.events.empty() ? after : page.events.back().seq;
            for (const EventRecord& e : queued.events) {
                if (page.events.size() >= limit) break;
                if (e.seq != newest + 1) continue;  // written meanwhile: in the page already
                page.events.push_back(e);
                newest = e.seq;
            }
            page.last_seq = std::max(page.last_seq, queued.last_seq);
            done(std::move(page));
        });
}

}  // namespace slipstream::agent::sessions
