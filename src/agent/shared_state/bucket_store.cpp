// DatabaseBucketStore: the table, the batch statement (GCRA for n requests of a key at once) and the sweep.
#include "agent/shared_state/bucket_store.h"

#include <charconv>
#include <future>

#include "base/clock.h"

namespace slipstream::agent::shared_state {

namespace {

constexpr const char* kCreate =
    "CREATE TABLE IF NOT EXISTS slipstream_rate_buckets (key text PRIMARY KEY, tat numeric NOT NULL, "
    "den bigint NOT NULL, t numeric NOT NULL, burst bigint NOT NULL, allowed integer NOT NULL)";

// Time is counted in 1/den ns (den: the rate's interval denominator), so the interval t is a whole number and every
// step is exact. A fresh key starts full: of n requests, min(n, burst) are allowed. A known key: from = max(tat,
// now); the bucket has room for (now + burst*t - from) / t requests (rounded down); a = min(n, room) are allowed and
// tat becomes from + a*t. The inserted row carries the fresh-key answer, from which the update reads n's bound
// (min(n, burst), enough since room <= burst) and now (its tat - its allowed * t). A TAT kept with another den
// (the rate changed) is converted, rounded up.
constexpr const char* kCheck = R"(
WITH clock AS (SELECT floor(extract(epoch FROM statement_timestamp()) * 1000000)::numeric * 1000 AS ns),
req AS (SELECT r.k, r.n, r.t::numeric AS t, r.d, r.b
        FROM jsonb_to_recordset($1::jsonb) AS r(k text, n bigint, t bigint, d bigint, b bigint))
INSERT INTO slipstream_rate_buckets AS s (key, tat, den, t, burst, allowed)
SELECT req.k, clock.ns * req.d + LEAST(req.n, req.b) * req.t, req.d, req.t, req.b, LEAST(req.n, req.b)
FROM req, clock
ON CONFLICT (key) DO UPDATE SET
  tat = GREATEST(CASE WHEN s.den = EXCLUDED.den THEN s.tat ELSE div(s.tat * EXCLUDED.den + s.den - 1, s.den) END,
                 EXCLUDED.tat - EXCLUDED.allowed * EXCLUDED.t)
        + EXCLUDED.t * LEAST(EXCLUDED.allowed, div(GREATEST(EXCLUDED.tat - EXCLUDED.allowed * EXCLUDED.t
            + EXCLUDED.burst * EXCLUDED.t - GREATEST(CASE WHEN s.den = EXCLUDED.den THEN s.tat
            ELSE div(s.tat * EXCLUDED.den + s.den - 1, s.den) END, EXCLUDED.tat - EXCLUDED.allowed * EXCLUDED.t), 0),
            EXCLUDED.t)),
  allowed = LEAST(EXCLUDED.allowed, div(GREATEST(EXCLUDED.tat - EXCLUDED.allowed * EXCLUDED.t
            + EXCLUDED.burst * EXCLUDED.t - GREATEST(CASE WHEN s.den = EXCLUDED.den THEN s.tat
            ELSE div(s.tat * EXCLUDED.den + s.den - 1, s.den) END, EXCLUDED.tat - EXCLUDED.allowed * EXCLUDED.t), 0),
            EXCLUDED.t)),
  den = EXCLUDED.den, t = EXCLUDED.t, burst = EXCLUDED.burst
RETURNING s.key, s.allowed, div(s.tat - (SELECT ns FROM clock) * s.den + s.den - 1, s.den) AS ahead)";

constexpr const char* kSweep =
    "DELETE FROM slipstream_rate_buckets WHERE tat < floor(extract(epoch FROM statement_timestamp()) * 1000000)"
    "::numeric * 1000 * den";

constexpr std::int64_t kSweepEveryNs = 60'000'000'000;

void append_json_string(std::string& out, std::string_view s) {
    out.push_back('"');
    for (const char c : s) {
        if (c == '"' || c == '\\') out.push_back('\\');
        out.push_back(c);  // keys are printable ASCII (the server hex-encodes any other byte)
    }
    out.push_back('"');
}

}  // namespace

base::Result<std::shared_ptr<DatabaseBucketStore>> DatabaseBucketStore::open(std::shared_ptr<store::Database> db,
                                                                             std::int64_t timeout_ns) {
    if (db->backend() != store::Backend::kPostgres)
        return base::Status::invalid_argument(
            "rate-limit-store: the shared buckets need --store postgresql://... (SQLite is not shared by replicas)");
    std::promise<base::Status> created;
    db->query(kCreate, {}, [&created](store::QueryResult r) { created.set_value(r.status()); });
    base::Status status = created.get_future().get();
    if (!status.is_ok()) return base::Status::unavailable("rate-limit-store: " + status.message());
    return std::make_shared<DatabaseBucketStore>(std::move(db), timeout_ns);
}

void DatabaseBucketStore::check(std::vector<RateLimitCheck> checks, Done done) {
    maybe_sweep();
    std::string json = "[";
    for (const RateLimitCheck& c : checks) {
        if (json.size() > 1) json.push_back(',');
        json += "{\"k\":";
        append_json_string(json, c.key);
        json += ",\"n\":" + std::to_string(c.count) + ",\"t\":" + std::to_string(c.interval_num) +
                ",\"d\":" + std::to_string(c.interval_den) + ",\"b\":" + std::to_string(c.burst) + "}";
    }
    json.push_back(']');
    auto keys = std::make_shared<std::vector<RateLimitCheck>>(std::move(checks));
    db_->query(
        kCheck, {std::move(json)},
        [keys, done = std::move(done)](store::QueryResult r) {
            if (!r.is_ok()) {
                done(false, {});
                return;
            }
            const store::ResultSet& rows = r.value();
            std::unordered_map<std::string_view, std::size_t> at;
            for (std::size_t i = 0; i < keys->size(); ++i)
                at.emplace((*keys)[i].key, i);
            std::vector<RateLimitOutcome> out(keys->size());
            std::size_t seen = 0;
            for (std::size_t row = 0; row < rows.row_count(); ++row) {
                auto it = at.find(rows.text(row, 0));
                if (it == at.end()) continue;
                RateLimitOutcome& o = out[it->second];
                std::string_view allowed = rows.text(row, 1);
                std::string_view ahead = rows.text(row, 2);
                std::from_chars(allowed.data(), allowed.data() + allowed.size(), o.allowed);
                std::from_chars(ahead.data(), ahead.data() + ahead.size(), o.tat_ahead_ns);
                ++seen;
            }
            if (seen != keys->size()) {
                done(false, {});
                return;
            }
            done(true, std::move(out));
        },
        timeout_ns_);
}

void DatabaseBucketStore::maybe_sweep() {
    const std::int64_t now = base::mono_now();
    std::int64_t last = last_sweep_ns_.load(std::memory_order_relaxed);
    if (now - last < kSweepEveryNs) return;
    if (!last_sweep_ns_.compare_exchange_strong(last, now)) return;  // another thread sweeps
    if (last == 0) return;                                           // the first minute: nothing to sweep yet
    db_->query(kSweep, {}, [](store::QueryResult) {});
}

}  // namespace slipstream::agent::shared_state
