// SessionStore's event log: append (one transaction, idempotent with a key) and events after a cursor.
#include <algorithm>

#include "agent/sessions/json_merge_patch.h"
#include "agent/sessions/session_rows.h"
#include "agent/sessions/session_store.h"

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

struct AppendJob {
    std::string owner;
    std::string id;
    std::vector<NewEvent> events;
    std::string key;
    std::int64_t now = 0;
    std::uint64_t max_events = 0;
    SessionCallback<AppendResult> done;
};

// Step 4 (the events and the key are inserted, then COMMIT): the range is the answer once committed.
void insert_and_commit(const std::shared_ptr<Transaction>& tx, const std::shared_ptr<AppendJob>& job,
                       std::int64_t first) {
    store::Params params{job->id, job->now};
    params.reserve(2 + 3 * job->events.size());
    for (std::size_t i = 0; i < job->events.size(); ++i) {
        params.emplace_back(first + static_cast<std::int64_t>(i));
        params.emplace_back(std::move(job->events[i].role));
        params.emplace_back(std::move(job->events[i].content_json));
    }
    const AppendResult range{first, first + static_cast<std::int64_t>(job->events.size()) - 1, false};
    // Each statement waits for the previous one's answer: a failed INSERT must never be followed by a COMMIT
    // (SQLite would keep the rest; PostgreSQL answers COMMIT of a failed transaction with a silent ROLLBACK).
    auto commit = [tx, job, range] {
        tx->commit([job, range](base::Status s) {
            if (!s.is_ok()) return job->done(error_from_status(s));
            job->done(range);
        });
    };
    tx->query(insert_events_sql(job->events.size()), std::move(params), [tx, job, range, commit](store::QueryResult r) {
        if (!r.is_ok()) return job->done(error_from_status(r.status()));
        if (job->key.empty()) return commit();
        tx->query(
            "INSERT INTO agent_session_appends (session_id, idempotency_key, first_seq, last_seq) VALUES ($1, $2, $3, "
            "$4)",
            {job->id, job->key, range.first_seq, range.last_seq}, [job, commit](store::QueryResult k) {
                if (!k.is_ok()) return job->done(error_from_status(k.status()));
                commit();
            });
    });
}

// Step 3: the reserved range must fit the session's limit.
void insert_within_limit(const std::shared_ptr<Transaction>& tx, const std::shared_ptr<AppendJob>& job,
                         std::int64_t last) {
    if (last > static_cast<std::int64_t>(job->max_events))
        return job->done(SessionError::over_limit(
            "events_per_session", job->max_events,
            "the session would hold more than " + std::to_string(job->max_events) + " events"));
    insert_and_commit(tx, job, last - static_cast<std::int64_t>(job->events.size()) + 1);
}

// Step 2: a known idempotency key answers the original range (the transaction is dropped: rolled back), even when
// the session is full by now.
void check_key(const std::shared_ptr<Transaction>& tx, const std::shared_ptr<AppendJob>& job, std::int64_t last) {
    if (job->key.empty()) return insert_within_limit(tx, job, last);
    tx->query("SELECT first_seq, last_seq FROM agent_session_appends WHERE session_id = $1 AND idempotency_key = $2",
              {job->id, job->key}, [tx, job, last](store::QueryResult r) {
                  if (!r.is_ok()) return job->done(error_from_status(r.status()));
                  if (r->row_count() > 0)
                      return job->done(AppendResult{int_cell(r.value(), 0, 0), int_cell(r.value(), 0, 1), true});
                  insert_within_limit(tx, job, last);
              });
}

// Step 1: take the session's row (locked until the end), reserve the seq range, slide the expiry.
void reserve_range(const std::shared_ptr<Transaction>& tx, const std::shared_ptr<AppendJob>& job) {
    tx->query(
        "UPDATE agent_sessions SET last_seq = last_seq + $3, updated_at = $2, expires_at = $2 + ttl_ms "
        "WHERE id = $1 AND expires_at > $2 RETURNING owner, last_seq",
        {job->id, job->now, static_cast<std::int64_t>(job->events.size())}, [tx, job](store::QueryResult r) {
            if (!r.is_ok()) return job->done(error_from_status(r.status()));
            if (r->row_count() == 0) return job->done(SessionError::not_found());
            if (r->text(0, 0) != job->owner) return job->done(SessionError::forbidden());
            check_key(tx, job, int_cell(r.value(), 0, 1));
        });
}

}  // namespace

void SessionStore::append(std::string owner, std::string id, std::vector<NewEvent> events, std::string idempotency_key,
                          SessionCallback<AppendResult> answer) {
    if (std::optional<SessionError> refused = prepare_events(events, idempotency_key, options_.limits))
        return answer(std::move(*refused));
    // Committed (or, buffered, queued): the followers hear of it before the writer's answer goes out.
    SessionCallback<AppendResult> done = [self = shared_from_this(), id, answer](SessionResult<AppendResult> r) {
        if (r.is_ok() && !r.value().replayed) self->announce(id, r.value().last_seq);
        answer(std::move(r));
    };
    if (buffer_)
        return buffer_->append(std::move(owner), std::move(id), std::move(events), std::move(idempotency_key), now_ms(),
                               options_.limits.max_events_per_session, std::move(done));
    auto job = std::make_shared<AppendJob>(AppendJob{std::move(owner), std::move(id), std::move(events),
                                                     std::move(idempotency_key), now_ms(),
                                                     options_.limits.max_events_per_session, std::move(done)});
    runner_->run([job](base::Result<std::shared_ptr<Transaction>> tx) {
        if (!tx.is_ok()) return job->done(error_from_status(tx.status()));
        reserve_range(tx.value(), job);
    });
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
