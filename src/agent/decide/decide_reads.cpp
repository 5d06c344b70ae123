// DecideStore::list_decisions() and get_decision(): the logged decisions, paged by (created_at, id), with rewards.
#include <charconv>

#include "agent/decide/decide_json.h"
#include "agent/decide/decide_rows.h"
#include "agent/decide/decide_store.h"
#include "agent/sessions/session_rows.h"
#include "json/writer.h"

namespace slipstream::agent::decide {

namespace {

// The stored answer (an object) with the decision's state added before its closing brace.
void append_decision(std::string& out, const store::ResultSet& rows, std::size_t row) {
    std::string_view answer = rows.text(row, 1);
    if (answer.size() < 2 || answer.back() != '}') {
        out += "null";
        return;
    }
    out.append(answer.substr(0, answer.size() - 1));
    out += ",\"closed\":";
    out += sessions::int_cell(rows, row, 2) != 0 ? "true" : "false";
    out += ",\"reward\":";
    if (rows.is_null(row, 3)) {
        out += "null";
    } else {
        append_number(out, double_cell(rows, row, 3));
    }
    out += "}";
}

// "<created_at>.<id>" -> its parts; false when malformed.
bool parse_cursor(std::string_view text, std::int64_t& at, std::string& id) {
    const std::size_t dot = text.find('.');
    if (dot == std::string_view::npos || dot == 0) return false;
    auto [end, ec] = std::from_chars(text.data(), text.data() + dot, at);
    if (ec != std::errc() || end != text.data() + dot) return false;
    id = std::string(text.substr(dot + 1));
    return !id.empty();
}

}  // namespace

void DecideStore::list_decisions(CapsuleRef ref, DecisionQuery q, DecideCallback<JsonAnswer> done) {
    if (!find(ref)) return done(DecideError::not_found("no such capsule"));
    std::int64_t after_at = -1;
    std::string after_id;
    if (!q.after.empty() && !parse_cursor(q.after, after_at, after_id))
        return done(DecideError::invalid("/after", "is not a cursor from a previous page"));
    const std::size_t limit = std::min(q.limit, options_.limits.max_page);
    query(
        "SELECT id, answer, closed, reward, created_at FROM decide_decisions WHERE tenant = $1 AND job = $2 AND "
        "name = $3 AND created_at >= $4 AND created_at < $5 AND (created_at > $6 OR (created_at = $6 AND id > $7)) "
        "ORDER BY created_at, id LIMIT $8",
        {ref.tenant, ref.job, ref.name, q.from_ms, q.to_ms, after_at, after_id, static_cast<std::int64_t>(limit)},
        [done, limit](store::QueryResult r) {
            if (!r.is_ok()) return done(error_from_status(r.status()));
            std::string out = "{\"decisions\":[";
            const std::size_t n = r->row_count();
            for (std::size_t i = 0; i < n; ++i) {
                if (i > 0) out += ",";
                append_decision(out, r.value(), i);
            }
            out += "],\"next\":";
            if (n == limit && n > 0) {
                json::Writer w(out);
                w.string(std::string(r->text(n - 1, 4)) + "." + std::string(r->text(n - 1, 0)));
            } else {
                out += "null";
            }
            out += "}";
            done(JsonAnswer{std::move(out), ""});
        });
}

void DecideStore::get_decision(CapsuleRef ref, std::string id, DecideCallback<JsonAnswer> done) {
    if (!find(ref)) return done(DecideError::not_found("no such capsule"));
    auto self = shared_from_this();
    query(
        "SELECT id, answer, closed, reward, context, principal FROM decide_decisions WHERE id = $1 AND tenant = $2 "
        "AND job = $3 AND name = $4",
        {id, ref.tenant, ref.job, ref.name}, [self, id, done](store::QueryResult d) {
            if (!d.is_ok()) return done(error_from_status(d.status()));
            if (d->row_count() == 0) return done(DecideError::not_found("no such decision"));
            auto head = std::make_shared<std::string>();
            append_decision(*head, d.value(), 0);
            head->pop_back();
            *head += ",\"context\":";
            head->append(d->text(0, 4));
            *head += ",\"principal\":";
            json::Writer(*head).string(d->text(0, 5));
            self->query(
                "SELECT reward_key, value, body, principal, created_at FROM decide_rewards WHERE decision_id = $1 "
                "ORDER BY created_at, reward_key",
                {id}, [head, done](store::QueryResult r) {
                    if (!r.is_ok()) return done(error_from_status(r.status()));
                    std::string out = std::move(*head);
                    out += ",\"rewards\":[";
                    for (std::size_t i = 0; i < r->row_count(); ++i) {
                        json::Writer w(out);
                        w.begin_object();
                        w.key("key");
                        w.string(r->text(i, 0));
                        w.key("value");
                        if (!w.number(double_cell(r.value(), i, 1)).is_ok()) w.null();
                        w.key("request");
                        if (r->text(i, 2).empty()) {
                            w.null();
                        } else {
                            w.raw(r->text(i, 2));
                        }
                        w.key("principal");
                        w.string(r->text(i, 3));
                        w.key("createdAt");
                        w.int64(sessions::int_cell(r.value(), i, 4));
                        w.end_object();
                        if (i + 1 < r->row_count()) out += ",";
                    }
                    out += "]}";
                    done(JsonAnswer{std::move(out), ""});
                });
        });
}

}  // namespace slipstream::agent::decide
