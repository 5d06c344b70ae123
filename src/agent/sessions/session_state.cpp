// SessionStore's state document: read, replace and merge-patch with optimistic concurrency (a version number).
#include "agent/sessions/json_merge_patch.h"
#include "agent/sessions/session_rows.h"
#include "agent/sessions/session_store.h"

namespace slipstream::agent::sessions {

namespace {

constexpr int kPatchAttempts = 5;  // unconditional patches retried after losing a race to another writer

SessionError too_large(std::uint64_t max) {
    return SessionError::over_limit("state_bytes", max, "the state is larger than " + std::to_string(max) + " bytes");
}

}  // namespace

void SessionStore::get_state(std::string owner, std::string id, SessionCallback<StateDocument> done) {
    query("SELECT owner, state, state_version FROM agent_sessions WHERE id = $1 AND expires_at > $2",
          {std::move(id), now_ms()}, [owner = std::move(owner), done](store::QueryResult r) {
              if (!r.is_ok()) return done(error_from_status(r.status()));
              if (r->row_count() == 0) return done(SessionError::not_found());
              if (r->text(0, 0) != owner) return done(SessionError::forbidden());
              done(StateDocument{int_cell(r.value(), 0, 2), text_cell(r.value(), 0, 1)});
          });
}

void SessionStore::put_state(std::string owner, std::string id, std::string state_json,
                             std::optional<std::int64_t> expected_version, SessionCallback<StateDocument> done) {
    base::Result<std::string> compact = compact_json(state_json);
    if (!compact.is_ok()) return done(SessionError::invalid("the state is not JSON"));
    if (compact->size() > options_.limits.max_state_bytes) return done(too_large(options_.limits.max_state_bytes));
    write_state(std::move(owner), std::move(id), std::move(compact).value(), expected_version,
                counted_state_write(std::move(done)));
}

SessionCallback<StateDocument> SessionStore::counted_state_write(SessionCallback<StateDocument> done) {
    return [stats = stats_, done = std::move(done)](SessionResult<StateDocument> r) {
        if (r.is_ok()) stats->state_writes.fetch_add(1, std::memory_order_relaxed);
        if (!r.is_ok() && r.error().code == SessionErrorCode::kConflict)
            stats->conflicts.fetch_add(1, std::memory_order_relaxed);
        done(std::move(r));
    };
}

void SessionStore::patch_state(std::string owner, std::string id, std::string patch_json,
                               std::optional<std::int64_t> expected_version, SessionCallback<StateDocument> done) {
    patch_once(std::move(owner), std::move(id), std::move(patch_json), expected_version, kPatchAttempts,
               counted_state_write(std::move(done)));
}

void SessionStore::patch_once(std::string owner, std::string id, std::string patch_json,
                              std::optional<std::int64_t> expected_version, int attempts_left,
                              SessionCallback<StateDocument> done) {
    auto self = shared_from_this();
    get_state(
        owner, id,
        [self, owner, id, patch_json, expected_version, attempts_left, done](SessionResult<StateDocument> current) {
            if (!current.is_ok()) return done(current.error());
            const StateDocument& doc = current.value();
            if (expected_version && *expected_version != doc.version) return done(SessionError::conflict(doc.version));
            base::Result<std::string> merged = apply_merge_patch(doc.state_json, patch_json);
            if (!merged.is_ok()) return done(SessionError::invalid("the patch is not JSON"));
            if (merged->size() > self->options_.limits.max_state_bytes)
                return done(too_large(self->options_.limits.max_state_bytes));
            self->write_state(owner, id, std::move(merged).value(), doc.version,
                              [self, owner, id, patch_json, expected_version, attempts_left,
                               done](SessionResult<StateDocument> written) {
                                  const bool lost_race = !written.is_ok() &&
                                                         written.error().code == SessionErrorCode::kConflict &&
                                                         !expected_version && attempts_left > 1;
                                  if (!lost_race) return done(std::move(written));
                                  self->patch_once(owner, id, patch_json, expected_version, attempts_left - 1, done);
                              });
        });
}

void SessionStore::write_state(std::string owner, std::string id, std::string state_json,
                               std::optional<std::int64_t> guard, SessionCallback<StateDocument> done) {
    const std::int64_t now = now_ms();
    std::string sql =
        "UPDATE agent_sessions SET state = $1, state_version = state_version + 1, updated_at = $2, expires_at = $2 + "
        "ttl_ms WHERE id = $3 AND owner = $4 AND expires_at > $2";
    store::Params params{state_json, now, id, owner};
    if (guard) {
        sql += " AND state_version = $5";
        params.emplace_back(*guard);
    }
    sql += " RETURNING state_version";
    auto self = shared_from_this();
    query(sql, std::move(params),
          [self, owner, id, state = std::move(state_json), guard, done](store::QueryResult r) mutable {
              if (!r.is_ok()) return done(error_from_status(r.status()));
              if (r->row_count() > 0) return done(StateDocument{int_cell(r.value(), 0, 0), std::move(state)});
              // Nothing written: unknown, another principal's, or a newer version (answered with it).
              self->get_state(owner, id, [done](SessionResult<StateDocument> current) {
                  if (!current.is_ok()) return done(current.error());
                  done(SessionError::conflict(current.value().version));
              });
          });
}

}  // namespace slipstream::agent::sessions
