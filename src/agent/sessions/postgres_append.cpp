// SessionStore's durable appends on PostgreSQL: one statement each while few are out, and under concurrency the
// appends that wait go together as one statement (one transaction, one commit and one round trip for the group).
#include <algorithm>
#include <unordered_set>

#include "agent/sessions/database_thread.h"
#include "agent/sessions/session_rows.h"
#include "agent/sessions/session_store.h"

namespace slipstream::agent::sessions {

namespace {

// The expiry an append sets, in both statements: at least now + ttl, as every write does, but moved in steps of
// ttl/100 (at most 1 s) ahead, so that most appends leave the indexed expires_at as it is and PostgreSQL updates the
// row in place (a HOT update: no new entry in the table's three indexes, no index bloat for the next lookups). A
// session then lives at least its TTL after its last write and at most that step longer.

// One append as one statement (its own transaction). The UPDATE reserves the range only for the owner, within the
// limit and with a key not seen in the statement's snapshot (it locks the row: a concurrent append's UPDATE waits,
// then sees this one's last_seq); the events and the key go in with it and, while some process follows the session
// (its `followers` count), the other replicas are NOTIFYed (at the commit). When the UPDATE took nothing, the
// snapshot's row and key say why. A key committed by a concurrent append after the snapshot makes the key INSERT
// fail (unique): the statement runs again and sees it. Parameters: $1 id, $2 now, $3 owner, $4 key ('' none), $5
// count, $6 the events limit, $7 the NOTIFY channel, $8 its payload's prefix, then (offset, role, content) per
// event. Columns: last_seq after the append (NULL: nothing appended), the snapshot's owner and last_seq, the key's
// range.
std::string single_append_sql(std::size_t n) {
    std::string values;
    for (std::size_t i = 0; i < n; ++i) {
        const std::size_t p = 9 + 3 * i;
        if (i > 0) values += ", ";
        values += "($" + std::to_string(p) + "::BIGINT, $" + std::to_string(p + 1) + "::TEXT, $" +
                  std::to_string(p + 2) + "::TEXT)";
    }
    return "WITH k AS (SELECT first_seq, last_seq FROM agent_session_appends WHERE session_id = $1 AND "
           "idempotency_key = $4), "
           "u AS (UPDATE agent_sessions SET last_seq = last_seq + $5, updated_at = $2, expires_at = "
           "CASE WHEN expires_at >= $2 + ttl_ms THEN expires_at ELSE $2 + ttl_ms + LEAST(ttl_ms / 100, 1000) END "
           "WHERE id = $1 AND expires_at > $2 AND owner = $3 AND last_seq + $5 <= $6 AND NOT EXISTS (SELECT 1 FROM "
           "k) RETURNING last_seq - $5 AS before, followers), "
           "e AS (INSERT INTO agent_session_events (session_id, seq, role, content, created_at) "
           "SELECT $1, u.before + v.i, v.role, v.content, $2 FROM u, (VALUES " +
           values +
           ") AS v (i, role, content)), "
           "a AS (INSERT INTO agent_session_appends (session_id, idempotency_key, first_seq, last_seq) "
           "SELECT $1, $4, u.before + 1, u.before + $5 FROM u WHERE $4 <> ''), "
           "s AS (SELECT owner, last_seq FROM agent_sessions WHERE id = $1 AND expires_at > $2) "
           "SELECT (SELECT before FROM u), (SELECT owner FROM s), (SELECT last_seq FROM s), "
           "(SELECT first_seq FROM k), (SELECT last_seq FROM k), "
           "(SELECT pg_notify($7, $8 || (u.before + $5)::TEXT) FROM u WHERE u.followers > 0)";
}

// A group of appends to distinct sessions as one statement: each does what the single statement does, all commit
// together (an error undoes them all). One text: the appends and the events come as arrays, so the statement is
// prepared once for every group size. The group is sorted by id, so a plan driven by r locks the rows in id order
// and two groups do not wait on each other in a cycle; should one deadlock all the same (PostgreSQL ends one after
// deadlock_timeout), its appends are sent again, as after a key committed concurrently (undone()). Parameters: $1 now,
// $2 the events limit, $3 the NOTIFY channel, $4 the payload's prefix (nonce and a space); per append (b = 1..k): $5
// ids, $6 owners, $7 keys ('' none), $8 counts; per event: $9 its append's b, $10 its offset in the append (1..n), $11
// roles, $12 contents. One row per append in b order: b, the seq before its events (NULL: nothing appended), the
// snapshot's owner and last_seq, the key's known range.
constexpr const char* kGroupAppend =
    "WITH r AS (SELECT * FROM unnest($5::TEXT[], $6::TEXT[], $7::TEXT[], $8::BIGINT[]) WITH ORDINALITY "
    "AS r (id, owner, key, n, b)), "
    "k AS (SELECT r.b, a.first_seq, a.last_seq FROM r JOIN agent_session_appends a ON a.session_id = r.id AND "
    "a.idempotency_key = r.key WHERE r.key <> ''), "
    "u AS (UPDATE agent_sessions x SET last_seq = x.last_seq + r.n, updated_at = $1::BIGINT, "
    "expires_at = CASE WHEN x.expires_at >= $1::BIGINT + x.ttl_ms THEN x.expires_at "
    "ELSE $1::BIGINT + x.ttl_ms + LEAST(x.ttl_ms / 100, 1000) END FROM r WHERE x.id = r.id AND x.expires_at > "
    "$1::BIGINT AND x.owner = r.owner "
    "AND x.last_seq + r.n <= $2::BIGINT AND NOT EXISTS (SELECT 1 FROM k WHERE k.b = r.b) "
    "RETURNING r.b, x.id, r.key, r.n, x.last_seq - r.n AS before, x.followers), "
    "ev AS (SELECT * FROM unnest($9::BIGINT[], $10::BIGINT[], $11::TEXT[], $12::TEXT[]) AS ev (b, i, role, "
    "content)), "
    "e AS (INSERT INTO agent_session_events (session_id, seq, role, content, created_at) "
    "SELECT u.id, u.before + ev.i, ev.role, ev.content, $1::BIGINT FROM u JOIN ev ON ev.b = u.b), "
    "a AS (INSERT INTO agent_session_appends (session_id, idempotency_key, first_seq, last_seq) "
    "SELECT u.id, u.key, u.before + 1, u.before + u.n FROM u WHERE u.key <> ''), "
    "s AS (SELECT r.b, x.owner, x.last_seq FROM r JOIN agent_sessions x ON x.id = r.id AND x.expires_at > "
    "$1::BIGINT) "
    "SELECT r.b, u.before, s.owner, s.last_seq, k.first_seq, k.last_seq, "
    "(SELECT count(pg_notify($3::TEXT, $4::TEXT || u.id || ' ' || (u.before + u.n)::TEXT)) FROM u "
    "WHERE u.followers > 0) "
    "FROM r LEFT JOIN u ON u.b = r.b LEFT JOIN s ON s.b = r.b LEFT JOIN k ON k.b = r.b ORDER BY r.b";

// PostgreSQL array literals ({"a","b\"c"}, {1,2}) of a group's values.
class ArrayLiteral {
  public:
    void text(std::string_view s) {
        open();
        out_.push_back('"');
        for (const char c : s) {
            if (c == '"' || c == '\\') out_.push_back('\\');
            out_.push_back(c);
        }
        out_.push_back('"');
    }
    void number(std::int64_t v) {
        open();
        out_ += std::to_string(v);
    }
    std::string done() && {
        if (out_.empty()) out_.push_back('{');
        out_.push_back('}');
        return std::move(out_);
    }

  private:
    void open() { out_.push_back(out_.empty() ? '{' : ','); }
    std::string out_;
};

// Rolled back for certain, so the appends may be sent again: a unique violation (a key committed concurrently), a
// deadlock or a serialization failure. Any other failure (a lost connection among them) may have committed.
bool undone(const store::QueryResult& r) {
    const std::string& state = r.error().sqlstate;
    return !r.error().connection_lost && (state == "23505" || state == "40P01" || state == "40001");
}

}  // namespace

void SessionStore::submit_postgres(PgAppend append) {
    {
        std::lock_guard<std::mutex> lock(pg_mutex_);
        // Invariant: appends wait only while every slot is taken (postgres_statement_done refills them).
        if (pg_in_flight_ >= std::max<std::size_t>(options_.append_in_flight, 1)) {
            pg_waiting_.push_back(std::move(append));
            return;
        }
        ++pg_in_flight_;
    }
    append_postgres(std::move(append.request), append.attempts_left);
}

void SessionStore::postgres_statement_done() {
    std::vector<std::vector<PgAppend>> groups;
    {
        std::lock_guard<std::mutex> lock(pg_mutex_);
        --pg_in_flight_;
        const std::size_t slots = std::max<std::size_t>(options_.append_in_flight, 1);
        const std::size_t most = std::max<std::size_t>(options_.append_batch, 1);
        while (!pg_waiting_.empty() && pg_in_flight_ < slots) {
            // The oldest append of each session, up to `most`; a session's later ones keep their order for the next.
            std::vector<PgAppend> group;
            std::deque<PgAppend> rest;
            std::unordered_set<std::string> taken;
            for (PgAppend& a : pg_waiting_) {
                if (group.size() < most && taken.insert(a.request->id).second)
                    group.push_back(std::move(a));
                else
                    rest.push_back(std::move(a));
            }
            pg_waiting_ = std::move(rest);
            ++pg_in_flight_;
            groups.push_back(std::move(group));
        }
    }
    for (std::vector<PgAppend>& group : groups)
        send_postgres(std::move(group));
}

void SessionStore::send_postgres(std::vector<PgAppend> group) {
    if (group.size() == 1) return append_postgres(std::move(group.front().request), group.front().attempts_left);
    append_postgres_group(std::move(group));
}

void SessionStore::append_postgres(std::shared_ptr<AppendRequest> request, int attempts_left) {
    const std::size_t n = request->events.size();
    store::Params params{request->id,
                         request->now,
                         request->owner,
                         request->key,
                         static_cast<std::int64_t>(n),
                         static_cast<std::int64_t>(options_.limits.max_events_per_session),
                         options_.notify_channel,
                         nonce_ + " " + request->id + " "};
    params.reserve(8 + 3 * n);
    for (std::size_t i = 0; i < n; ++i) {
        params.emplace_back(static_cast<std::int64_t>(i + 1));
        params.emplace_back(request->events[i].role);
        params.emplace_back(request->events[i].content_json);
    }
    const std::uint64_t max_events = options_.limits.max_events_per_session;
    db_->query(single_append_sql(n), std::move(params),
               [self = shared_from_this(), request, attempts_left, max_events](store::QueryResult r) {
                   mark_database_thread();
                   // The answer, then the slot goes to what waits.
                   auto answer = [&](SessionResult<AppendResult> result) {
                       request->done(std::move(result));
                       self->postgres_statement_done();
                   };
                   // A concurrent append with the same key committed after this statement's snapshot: once more,
                   // it then sees the key (the slot stays taken).
                   if (!r.is_ok() && r.status().code() == base::StatusCode::kAlreadyExists && !request->key.empty() &&
                       attempts_left > 1)
                       return self->append_postgres(request, attempts_left - 1);
                   if (!r.is_ok()) return answer(error_from_status(r.status()));
                   const auto count = static_cast<std::int64_t>(request->events.size());
                   if (r->row_count() == 0) return answer(SessionError::internal("no answer row"));
                   if (r->is_null(0, 0)) {
                       // Nothing appended: the snapshot says why; else the row changed meanwhile (deleted,
                       // expired, filled up), and a fresh snapshot will.
                       if (r->is_null(0, 1)) return answer(SessionError::not_found());
                       if (r->text(0, 1) != request->owner) return answer(SessionError::forbidden());
                       if (!r->is_null(0, 3))
                           return answer(AppendResult{int_cell(r.value(), 0, 3), int_cell(r.value(), 0, 4), true});
                       if (int_cell(r.value(), 0, 2) + count > static_cast<std::int64_t>(max_events))
                           return answer(SessionError::too_many_events(max_events));
                       if (attempts_left > 1) return self->append_postgres(request, attempts_left - 1);
                       return answer(SessionError::unavailable("the session kept changing"));
                   }
                   const std::int64_t before = int_cell(r.value(), 0, 0);
                   // Committed, and NOTIFYed with it: only this process's followers are left to wake.
                   self->changes_->publish(request->id);
                   answer(AppendResult{before + 1, before + count, false});
               });
}

void SessionStore::append_postgres_group(std::vector<PgAppend> group) {
    stats_->grouped.fetch_add(group.size(), std::memory_order_relaxed);
    std::sort(group.begin(), group.end(),
              [](const PgAppend& a, const PgAppend& b) { return a.request->id < b.request->id; });
    ArrayLiteral ids, owners, keys, counts, event_of, offsets, roles, contents;
    for (std::size_t b = 0; b < group.size(); ++b) {
        const AppendRequest& a = *group[b].request;
        ids.text(a.id);
        owners.text(a.owner);
        keys.text(a.key);
        counts.number(static_cast<std::int64_t>(a.events.size()));
        for (std::size_t i = 0; i < a.events.size(); ++i) {
            event_of.number(static_cast<std::int64_t>(b + 1));
            offsets.number(static_cast<std::int64_t>(i + 1));
            roles.text(a.events[i].role);
            contents.text(a.events[i].content_json);
        }
    }
    // The group's own time: every member is written at the latest of their arrival times.
    std::int64_t now = 0;
    for (const PgAppend& a : group)
        now = std::max(now, a.request->now);
    store::Params params{now,
                         static_cast<std::int64_t>(options_.limits.max_events_per_session),
                         options_.notify_channel,
                         nonce_ + " ",
                         std::move(ids).done(),
                         std::move(owners).done(),
                         std::move(keys).done(),
                         std::move(counts).done(),
                         std::move(event_of).done(),
                         std::move(offsets).done(),
                         std::move(roles).done(),
                         std::move(contents).done()};
    const std::uint64_t max_events = options_.limits.max_events_per_session;
    db_->query(kGroupAppend, std::move(params),
               [self = shared_from_this(), group = std::move(group), max_events](store::QueryResult r) mutable {
                   mark_database_thread();
                   std::vector<PgAppend> again;  // sent once more (each on its own or in a later group)
                   if (!r.is_ok() || r->row_count() != group.size()) {
                       const bool retry = !r.is_ok() && undone(r);
                       for (PgAppend& a : group) {
                           if (retry && a.attempts_left > 1) {
                               again.push_back(PgAppend{std::move(a.request), a.attempts_left - 1});
                               continue;
                           }
                           a.request->done(r.is_ok() ? SessionError::internal("no answer row per append")
                                                     : error_from_status(r.status()));
                       }
                   } else {
                       for (std::size_t b = 0; b < group.size(); ++b) {
                           AppendRequest& a = *group[b].request;
                           const auto count = static_cast<std::int64_t>(a.events.size());
                           if (!r->is_null(b, 1)) {
                               const std::int64_t before = int_cell(r.value(), b, 1);
                               self->changes_->publish(a.id);
                               a.done(AppendResult{before + 1, before + count, false});
                           } else if (r->is_null(b, 2)) {
                               a.done(SessionError::not_found());
                           } else if (r->text(b, 2) != a.owner) {
                               a.done(SessionError::forbidden());
                           } else if (!r->is_null(b, 4)) {
                               a.done(AppendResult{int_cell(r.value(), b, 4), int_cell(r.value(), b, 5), true});
                           } else if (int_cell(r.value(), b, 3) + count > static_cast<std::int64_t>(max_events)) {
                               a.done(SessionError::too_many_events(max_events));
                           } else if (group[b].attempts_left > 1) {
                               // The row changed after the snapshot (a concurrent append filled it up, a delete).
                               again.push_back(PgAppend{std::move(group[b].request), group[b].attempts_left - 1});
                           } else {
                               a.done(SessionError::unavailable("the session kept changing"));
                           }
                       }
                   }
                   for (PgAppend& a : again)
                       self->submit_postgres(std::move(a));
                   self->postgres_statement_done();
               });
}

}  // namespace slipstream::agent::sessions
