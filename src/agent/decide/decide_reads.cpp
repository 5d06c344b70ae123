// DecideStore::list_decisions() and get_decision(): the logged decisions, paged by (created_at, id), with rewards.
#include <algorithm>
#include <charconv>
#include <unordered_set>
#include <variant>

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

// A decision row still queued for the writer (decide_store.h's column order).
const std::string& text_param(const DecisionRow& row, std::size_t i) {
    static const std::string kEmpty;
    const auto* s = std::get_if<std::string>(&row.params[i]);
    return s != nullptr ? *s : kEmpty;
}
std::int64_t int_param(const DecisionRow& row, std::size_t i) {
    const auto* v = std::get_if<std::int64_t>(&row.params[i]);
    return v != nullptr ? *v : 0;
}
constexpr std::size_t kTenant = 1, kJob = 2, kName = 3, kPrincipal = 6, kContext = 9, kAnswer = 10, kCreated = 11,
                      kActions = 16;

// One line of the export (GET .../decisions?format=jsonl): what an off-policy replay needs of a decision.
void exported_line(std::string& out, std::string_view id, std::int64_t created_at, bool closed,
                   std::optional<double> reward, std::string_view context, std::string_view answer,
                   std::string_view features, bool queued) {
    json::Writer w(out);
    w.begin_object();
    w.key("decisionId");
    w.string(id);
    w.key("createdAt");
    w.int64(created_at);
    w.key("closed");
    w.boolean(closed);
    w.key("reward");
    if (!reward || !w.number(*reward).is_ok()) w.null();
    w.key("context");
    w.raw(context.empty() ? std::string_view("{}") : context);
    w.key("answer");
    w.raw(answer.empty() ? std::string_view("null") : answer);
    if (!features.empty()) {
        w.key("actionFeatures");
        w.raw(features);
    }
    if (queued) {
        w.key("queued");
        w.boolean(true);
    }
    w.end_object();
}

bool of_capsule(const DecisionRow& row, const CapsuleRef& ref) {
    return row.params.size() == kDecisionColumnCount && text_param(row, kTenant) == ref.tenant &&
           text_param(row, kJob) == ref.job && text_param(row, kName) == ref.name;
}

// A queued decision as listed: open, without a reward, and marked "queued".
void append_pending(std::string& out, const DecisionRow& row) {
    const std::string& answer = text_param(row, kAnswer);
    if (answer.size() < 2 || answer.back() != '}') {
        out += "null";
        return;
    }
    out.append(answer, 0, answer.size() - 1);
    out += ",\"closed\":false,\"reward\":null,\"queued\":true}";
}

struct Listed {
    std::int64_t at = 0;
    std::string id;
    std::string json;
};

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
    // Shadow (and buffered) decisions not written yet, read before the page: each is then seen once at least.
    auto pending = std::make_shared<std::vector<DecisionRow>>(writer_->pending([&](const DecisionRow& row) {
        if (!of_capsule(row, ref)) return false;
        const std::int64_t at = int_param(row, kCreated);
        return at >= q.from_ms && at < q.to_ms && (at > after_at || (at == after_at && row.id > after_id));
    }));
    query(
        "SELECT id, answer, closed, reward, created_at, context, actions FROM decide_decisions WHERE tenant = $1 AND "
        "job = $2 AND "
        "name = $3 AND created_at >= $4 AND created_at < $5 AND (created_at > $6 OR (created_at = $6 AND id > $7)) "
        "ORDER BY created_at, id LIMIT $8",
        {ref.tenant, ref.job, ref.name, q.from_ms, q.to_ms, after_at, after_id, static_cast<std::int64_t>(limit)},
        [done, limit, pending, lines = q.lines](store::QueryResult r) {
            if (!r.is_ok()) return done(error_from_status(r.status()));
            std::vector<Listed> items;
            std::unordered_set<std::string> written;
            for (std::size_t i = 0; i < r->row_count(); ++i) {
                Listed item{sessions::int_cell(r.value(), i, 4), std::string(r->text(i, 0)), ""};
                if (lines) {
                    exported_line(item.json, item.id, item.at, sessions::int_cell(r.value(), i, 2) != 0,
                                  r->is_null(i, 3) ? std::nullopt : std::optional(double_cell(r.value(), i, 3)),
                                  r->text(i, 5), r->text(i, 1), r->text(i, 6), false);
                } else {
                    append_decision(item.json, r.value(), i);
                }
                written.insert(item.id);
                items.push_back(std::move(item));
            }
            for (const DecisionRow& row : *pending) {
                if (written.count(row.id) != 0) continue;  // committed meanwhile: listed as written
                Listed item{int_param(row, kCreated), row.id, ""};
                if (lines) {
                    exported_line(item.json, row.id, item.at, false, std::nullopt, text_param(row, kContext),
                                  text_param(row, kAnswer), text_param(row, kActions), true);
                } else {
                    append_pending(item.json, row);
                }
                items.push_back(std::move(item));
            }
            if (!pending->empty()) {
                std::sort(items.begin(), items.end(),
                          [](const Listed& a, const Listed& b) { return a.at != b.at ? a.at < b.at : a.id < b.id; });
                if (items.size() > limit) items.resize(limit);
            }
            if (lines) {
                JsonAnswer page;
                for (const Listed& item : items)
                    page.json += item.json + "\n";
                if (items.size() == limit && limit > 0)
                    page.next = std::to_string(items.back().at) + "." + items.back().id;
                return done(std::move(page));
            }
            std::string out = "{\"decisions\":[";
            for (std::size_t i = 0; i < items.size(); ++i) {
                if (i > 0) out += ",";
                out += items[i].json;
            }
            out += "],\"next\":";
            if (items.size() == limit && limit > 0) {
                json::Writer w(out);
                w.string(std::to_string(items.back().at) + "." + items.back().id);
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
    std::vector<DecisionRow> queued =
        writer_->pending([&](const DecisionRow& row) { return row.id == id && of_capsule(row, ref); });
    auto pending = std::make_shared<std::optional<DecisionRow>>();
    if (!queued.empty()) *pending = std::move(queued.front());
    query(
        "SELECT id, answer, closed, reward, context, principal FROM decide_decisions WHERE id = $1 AND tenant = $2 "
        "AND job = $3 AND name = $4",
        {id, ref.tenant, ref.job, ref.name}, [self, id, done, pending](store::QueryResult d) {
            if (!d.is_ok()) return done(error_from_status(d.status()));
            if (d->row_count() == 0 && pending->has_value()) {
                // Not written yet: its logged row as it will be, without rewards (a reward waits for the write).
                const DecisionRow& row = **pending;
                std::string out;
                append_pending(out, row);
                out.pop_back();
                out += ",\"context\":" + text_param(row, kContext) + ",\"principal\":";
                json::Writer(out).string(text_param(row, kPrincipal));
                out += ",\"rewards\":[]}";
                return done(JsonAnswer{std::move(out), ""});
            }
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
