// Connection against a real PostgreSQL server: types both ways, injection attempts, typed errors, transactions,
// timeouts with cancellation, prepared statements, fetch_json.
#include "store/postgres/connection.h"

#include <gtest/gtest.h>

#include <optional>

#include "store/postgres/pg_test_support.h"

namespace slipstream::store::postgres {
namespace {

using testing::run_until;

class ConnectionTest : public ::testing::Test {
  protected:
    void SetUp() override {
        SLIPSTREAM_REQUIRE_CLUSTER(cluster);
        // UTC makes timestamptz output exact; the server's default zone is whatever initdb found.
        conninfo_ = cluster->conninfo() + " options=-cTimeZone=UTC";
        conn_ = open(&cancel_);
        ASSERT_NE(conn_, nullptr);
    }

    std::unique_ptr<Connection> open(WorkerPool* cancel, bool pipeline = false) {
        std::optional<base::Status> status;
        ConnectOptions options{
            .timeout_ns = 10 * base::kNanosPerSecond, .pipeline = pipeline, .cancel_workers = cancel};
        auto c = Connection::connect(loop_, conninfo_, options, [&](Connection&, base::Status s) { status = s; });
        if (!run_until(loop_, [&] { return status.has_value(); }) || !status->is_ok()) {
            ADD_FAILURE() << "connect: " << (status ? status->to_string() : "no answer");
            return nullptr;
        }
        return c;
    }

    QueryResult run(Connection& c, std::string sql, Params params = {}, QueryOptions options = {}) {
        std::optional<QueryResult> result;
        c.query(
            std::move(sql), std::move(params), [&](QueryResult r) { result.emplace(std::move(r)); }, options);
        if (!run_until(loop_, [&] { return result.has_value(); })) return QueryResult(base::Status::internal("hung"));
        return std::move(*result);
    }

    JsonResult json(Connection& c, std::string sql, Params params = {}) {
        std::optional<JsonResult> result;
        c.fetch_json(std::move(sql), std::move(params), [&](JsonResult r) { result.emplace(std::move(r)); });
        if (!run_until(loop_, [&] { return result.has_value(); })) return JsonResult(base::Status::internal("hung"));
        return std::move(*result);
    }

    base::SystemClock clock_;
    net::EventLoop loop_{clock_};
    WorkerPool cancel_{{.threads = 1, .max_queue = 16, .name = "ss-pg-cancel"}};
    std::string conninfo_;
    std::unique_ptr<Connection> conn_;
};

TEST_F(ConnectionTest, SelectsOneRow) {
    QueryResult r = run(*conn_, "SELECT 1 AS one, 'a'::text AS two");
    ASSERT_TRUE(r.is_ok()) << r.status().to_string();
    ASSERT_EQ(r->row_count(), 1u);
    EXPECT_EQ(r->columns()[0].name, "one");
    EXPECT_EQ(r->columns()[0].type, ColumnType::kInt);
    EXPECT_EQ(r->value(0, 0), Value(std::int64_t{1}));
    EXPECT_EQ(r->value(0, 1), Value(std::string("a")));
    EXPECT_EQ(r->command(), "SELECT 1");
    EXPECT_TRUE(conn_->is_idle());
    EXPECT_GT(conn_->backend_pid(), 0);
}

constexpr const char* kTypesTable =
    "CREATE TEMP TABLE types (i2 int2, i4 int4, i8 int8, f4 float4, f8 float8, n numeric, t text, v varchar(20), "
    "b bool, by bytea, u uuid, d date, ts timestamp, tz timestamptz, iv interval, j json, jb jsonb)";
constexpr const char* kInsertTypes =
    "INSERT INTO types VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17)";

Params typed_row() {
    return {std::int64_t{-32768},
            std::int64_t{2147483647},
            std::int64_t{INT64_MIN},
            1.5,
            0.1,
            std::string("12345678901234567890.123456789"),
            std::string("h\u00e9llo \"w\"\n"),
            std::string("varchar"),
            true,
            Bytes{std::string("\0\x01\xff", 3)},
            std::string("a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11"),
            std::string("2024-02-29"),
            std::string("2024-01-02 03:04:05.123456"),
            std::string("2024-01-02 03:04:05+02"),
            std::string("1 day 02:03:04"),
            std::string("{\"a\": [1, 2.5, \"x\"], \"b\": null}"),
            std::string("{\"k\": true,  \"a\": 1}")};
}

TEST_F(ConnectionTest, EveryCoreTypeBothWays) {
    ASSERT_TRUE(run(*conn_, kTypesTable).is_ok());
    QueryResult ins = run(*conn_, kInsertTypes, typed_row());
    ASSERT_TRUE(ins.is_ok()) << ins.status().to_string();
    EXPECT_EQ(ins->affected_rows(), 1);
    EXPECT_EQ(ins->command(), "INSERT 0 1");
    ASSERT_TRUE(run(*conn_, kInsertTypes, Params(17, std::monostate{})).is_ok());

    QueryResult r = run(*conn_, "SELECT * FROM types ORDER BY i2 NULLS LAST");
    ASSERT_TRUE(r.is_ok()) << r.status().to_string();
    ASSERT_EQ(r->row_count(), 2u);
    const ColumnType kinds[] = {ColumnType::kInt,       ColumnType::kInt,         ColumnType::kInt,
                                ColumnType::kFloat,     ColumnType::kFloat,       ColumnType::kNumeric,
                                ColumnType::kText,      ColumnType::kText,        ColumnType::kBool,
                                ColumnType::kBytes,     ColumnType::kUuid,        ColumnType::kDate,
                                ColumnType::kTimestamp, ColumnType::kTimestampTz, ColumnType::kInterval,
                                ColumnType::kJson,      ColumnType::kJson};
    for (std::size_t c = 0; c < 17; ++c)
        EXPECT_EQ(r->columns()[c].type, kinds[c]) << r->columns()[c].name;

    const Value want[] = {std::int64_t{-32768},
                          std::int64_t{2147483647},
                          std::int64_t{INT64_MIN},
                          1.5,
                          0.1,
                          std::string("12345678901234567890.123456789"),
                          std::string("h\u00e9llo \"w\"\n"),
                          std::string("varchar"),
                          true,
                          Bytes{std::string("\0\x01\xff", 3)},
                          std::string("a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11"),
                          std::string("2024-02-29"),
                          std::string("2024-01-02 03:04:05.123456"),
                          std::string("2024-01-02 01:04:05+00"),
                          std::string("1 day 02:03:04"),
                          std::string("{\"a\": [1, 2.5, \"x\"], \"b\": null}"),  // json keeps its text
                          std::string("{\"a\": 1, \"k\": true}")};               // jsonb normalizes
    for (std::size_t c = 0; c < 17; ++c) {
        EXPECT_EQ(r->value(0, c), want[c]) << r->columns()[c].name << " = " << r->text(0, c);
        EXPECT_TRUE(r->is_null(1, c)) << r->columns()[c].name;
        EXPECT_EQ(r->value(1, c), Value(std::monostate{}));
    }
}

TEST_F(ConnectionTest, FetchJsonWritesRowsAsJson) {
    ASSERT_TRUE(run(*conn_, kTypesTable).is_ok());
    ASSERT_TRUE(run(*conn_, kInsertTypes, typed_row()).is_ok());
    ASSERT_TRUE(run(*conn_, kInsertTypes, Params(17, std::monostate{})).is_ok());
    JsonResult j = json(*conn_, "SELECT * FROM types ORDER BY i2 NULLS LAST");
    ASSERT_TRUE(j.is_ok()) << j.status().to_string();
    EXPECT_EQ(j.value(),
              "[{\"i2\":-32768,\"i4\":2147483647,\"i8\":-9223372036854775808,\"f4\":1.5,\"f8\":0.1,"
              "\"n\":\"12345678901234567890.123456789\",\"t\":\"h\u00e9llo \\\"w\\\"\\n\",\"v\":\"varchar\","
              "\"b\":true,\"by\":\"AAH/\",\"u\":\"a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11\",\"d\":\"2024-02-29\","
              "\"ts\":\"2024-01-02 03:04:05.123456\",\"tz\":\"2024-01-02 01:04:05+00\",\"iv\":\"1 day 02:03:04\","
              "\"j\":{\"a\":[1,2.5,\"x\"],\"b\":null},\"jb\":{\"a\":1,\"k\":true}},"
              "{\"i2\":null,\"i4\":null,\"i8\":null,\"f4\":null,\"f8\":null,\"n\":null,\"t\":null,\"v\":null,"
              "\"b\":null,\"by\":null,\"u\":null,\"d\":null,\"ts\":null,\"tz\":null,\"iv\":null,\"j\":null,"
              "\"jb\":null}]");
    JsonResult none = json(*conn_, "SELECT 1 AS x WHERE false");
    ASSERT_TRUE(none.is_ok());
    EXPECT_EQ(none.value(), "[]");
    JsonResult nan = json(*conn_, "SELECT 'NaN'::float8 AS x");
    EXPECT_TRUE(nan.status().is_out_of_range()) << nan.status().to_string();
}

TEST_F(ConnectionTest, ParametersCannotChangeTheStatement) {
    ASSERT_TRUE(run(*conn_, "CREATE TEMP TABLE users (id int PRIMARY KEY, name text)").is_ok());
    const std::string attacks[] = {"x'); DROP TABLE users; --", "' OR '1'='1", "\\'; SELECT pg_sleep(10); --", "$1",
                                   "\"; DELETE FROM users; --"};
    std::int64_t id = 0;
    for (const std::string& a : attacks) {
        QueryResult ins = run(*conn_, "INSERT INTO users VALUES ($1, $2)", {++id, a});
        ASSERT_TRUE(ins.is_ok()) << ins.status().to_string();
    }
    for (const std::string& a : attacks) {
        QueryResult r = run(*conn_, "SELECT name FROM users WHERE name = $1", {a});
        ASSERT_TRUE(r.is_ok());
        ASSERT_EQ(r->row_count(), 1u) << a;  // matched as a value, exactly once
        EXPECT_EQ(r->value(0, 0), Value(a));
    }
    QueryResult none = run(*conn_, "SELECT count(*) FROM users WHERE name = $1", {std::string("' OR '1'='1' --x")});
    ASSERT_TRUE(none.is_ok());
    EXPECT_EQ(none->value(0, 0), Value(std::int64_t{0}));
    // A value where a number belongs is refused as a value (22P02), never read as SQL.
    QueryResult bad = run(*conn_, "SELECT name FROM users WHERE id = $1", {std::string("1 OR 1=1")});
    EXPECT_TRUE(bad.status().is_invalid_argument());
    EXPECT_EQ(bad.error().sqlstate, "22P02");
    EXPECT_EQ(bad.error().message, "invalid input syntax for type integer: \"1 OR 1=1\"");
    QueryResult count = run(*conn_, "SELECT count(*) FROM users");
    ASSERT_TRUE(count.is_ok());
    EXPECT_EQ(count->value(0, 0), Value(std::int64_t{5}));
}

TEST_F(ConnectionTest, ServerErrorsAreTyped) {
    QueryResult missing = run(*conn_, "SELECT 1 FROM nope");
    EXPECT_TRUE(missing.status().is_invalid_argument());
    EXPECT_EQ(missing.error().sqlstate, "42P01");
    EXPECT_EQ(missing.error().message, "relation \"nope\" does not exist");
    EXPECT_EQ(missing.error().position, 15);
    EXPECT_FALSE(missing.error().connection_lost);
    EXPECT_EQ(missing.status().message(), "relation \"nope\" does not exist (SQLSTATE 42P01)");

    QueryResult syntax = run(*conn_, "SELEC 1");
    EXPECT_EQ(syntax.error().sqlstate, "42601");
    EXPECT_EQ(syntax.error().position, 1);

    ASSERT_TRUE(run(*conn_, "CREATE TEMP TABLE u (id int PRIMARY KEY)").is_ok());
    ASSERT_TRUE(run(*conn_, "INSERT INTO u VALUES (1)").is_ok());
    QueryResult dup = run(*conn_, "INSERT INTO u VALUES ($1)", {std::int64_t{1}});
    EXPECT_TRUE(dup.status().is_already_exists());
    EXPECT_EQ(dup.error().sqlstate, "23505");
    EXPECT_EQ(dup.error().detail, "Key (id)=(1) already exists.");
    // The connection is still usable after errors.
    EXPECT_TRUE(run(*conn_, "SELECT 1").is_ok());
}

TEST_F(ConnectionTest, ErrorInsideTransactionRollsBack) {
    ASSERT_TRUE(run(*conn_, "CREATE TEMP TABLE acct (id int PRIMARY KEY, v int)").is_ok());
    std::optional<QueryResult> began;
    conn_->begin([&](QueryResult r) { began.emplace(std::move(r)); });
    ASSERT_TRUE(run_until(loop_, [&] { return began.has_value(); }));
    ASSERT_TRUE(began->is_ok());
    EXPECT_TRUE(conn_->in_transaction());
    ASSERT_TRUE(run(*conn_, "INSERT INTO acct VALUES (1, 10)").is_ok());
    QueryResult dup = run(*conn_, "INSERT INTO acct VALUES (1, 20)");
    EXPECT_EQ(dup.error().sqlstate, "23505");
    QueryResult after = run(*conn_, "SELECT 1");
    EXPECT_EQ(after.error().sqlstate, "25P02");  // in failed transaction
    EXPECT_TRUE(conn_->in_transaction());
    std::optional<QueryResult> rolled;
    conn_->rollback([&](QueryResult r) { rolled.emplace(std::move(r)); });
    ASSERT_TRUE(run_until(loop_, [&] { return rolled.has_value(); }));
    ASSERT_TRUE(rolled->is_ok());
    EXPECT_EQ(rolled->value().command(), "ROLLBACK");
    EXPECT_FALSE(conn_->in_transaction());
    QueryResult count = run(*conn_, "SELECT count(*) FROM acct");
    ASSERT_TRUE(count.is_ok());
    EXPECT_EQ(count->value(0, 0), Value(std::int64_t{0}));
}

TEST_F(ConnectionTest, TimeoutCancelsTheStatementAndTheConnectionGoesOn) {
    int pid = conn_->backend_pid();
    QueryResult slow = run(*conn_, "SELECT pg_sleep(60)", {}, {.timeout_ns = 200 * base::kNanosPerMilli});
    EXPECT_TRUE(slow.status().is_timeout()) << slow.status().to_string();
    EXPECT_EQ(slow.status().message(), "statement timed out after 200 ms");
    // The next statement runs once the server has stopped the sleep (the cancel worked: no 60 s wait, the run
    // bound is 30 s), on the same backend.
    QueryResult next = run(*conn_, "SELECT 2");
    ASSERT_TRUE(next.is_ok()) << next.status().to_string();
    EXPECT_EQ(next->value(0, 0), Value(std::int64_t{2}));
    EXPECT_EQ(conn_->backend_pid(), pid);
    EXPECT_FALSE(conn_->is_broken());
}

// What backend `pid` is doing, as another connection sees it in pg_stat_activity: "state: query".
std::string activity(Connection& observer, net::EventLoop& loop, int pid) {
    std::optional<QueryResult> r;
    observer.query("SELECT state || ': ' || query FROM pg_stat_activity WHERE pid = $1", {std::int64_t{pid}},
                   [&](QueryResult q) { r.emplace(std::move(q)); });
    if (!run_until(loop, [&] { return r.has_value(); }) || !r->is_ok() || r->value().row_count() != 1) return "?";
    return std::string(r->value().text(0, 0));
}

TEST_F(ConnectionTest, CancelStopsTheStatementOnTheServerAndDropsAQueuedOne) {
    std::unique_ptr<Connection> observer = open(&cancel_);
    ASSERT_NE(observer, nullptr);
    const int pid = conn_->backend_pid();
    std::vector<std::string> seen;
    auto record = [&seen](QueryResult r) {
        seen.push_back(r.is_ok() ? std::string(r->text(0, 0)) : r.status().to_string());
    };
    const Connection::StatementId sleep = conn_->query("SELECT pg_sleep(30)", {}, record);
    const Connection::StatementId queued = conn_->query("SELECT 'never sent'", {}, record);
    conn_->query("SELECT 'next'", {}, record);
    ASSERT_TRUE(run_until(loop_, [&] { return activity(*observer, loop_, pid) == "active: SELECT pg_sleep(30)"; }));

    // A statement not sent yet leaves the queue; the one running is answered at once, from inside cancel().
    EXPECT_TRUE(conn_->cancel(queued));
    EXPECT_EQ(seen, (std::vector<std::string>{"cancelled: statement cancelled by the client"}));
    EXPECT_TRUE(conn_->cancel(sleep));
    EXPECT_EQ(seen, (std::vector<std::string>{"cancelled: statement cancelled by the client",
                                              "cancelled: statement cancelled by the client"}));
    EXPECT_FALSE(conn_->cancel(sleep));  // answered already
    EXPECT_FALSE(conn_->cancel(queued));
    EXPECT_EQ(conn_->pending(), 2u);  // the sleep until the server has stopped it, then 'next'

    // The server stops the sleep (no 30 s wait: the bound is 10 s) and the same backend serves the next statement.
    ASSERT_TRUE(run_until(
        loop_, [&] { return seen.size() == 3; }, 10 * base::kNanosPerSecond));
    EXPECT_EQ(seen[2], "next");
    EXPECT_EQ(activity(*observer, loop_, pid), "idle: SELECT 'next'");
    EXPECT_EQ(conn_->backend_pid(), pid);
    EXPECT_TRUE(conn_->is_idle());
    QueryResult after = run(*conn_, "SELECT 3");
    ASSERT_TRUE(after.is_ok()) << after.status().to_string();
    EXPECT_EQ(after->value(0, 0), Value(std::int64_t{3}));
}

TEST_F(ConnectionTest, CancelInAPipelineStopsTheStatementOnceItIsTheOldest) {
    std::unique_ptr<Connection> c = open(&cancel_, /*pipeline=*/true);
    ASSERT_NE(c, nullptr);
    std::vector<std::string> seen;
    auto record = [&seen](QueryResult r) {
        seen.push_back(r.is_ok() ? std::string(r->text(0, 0)) : r.status().to_string());
    };
    c->query("SELECT 'first' FROM pg_sleep(0.2)", {}, record);
    const Connection::StatementId sleep = c->query("SELECT pg_sleep(30)", {}, record);
    EXPECT_TRUE(c->cancel(sleep));
    EXPECT_EQ(seen, (std::vector<std::string>{"cancelled: statement cancelled by the client"}));
    ASSERT_TRUE(run_until(
        loop_, [&] { return seen.size() == 2 && c->is_idle(); }, 10 * base::kNanosPerSecond));
    EXPECT_EQ(seen[1], "first");
    QueryResult after = run(*c, "SELECT 'after'");
    ASSERT_TRUE(after.is_ok()) << after.status().to_string();
    EXPECT_EQ(after->text(0, 0), "after");
    EXPECT_FALSE(c->is_broken());
}

TEST_F(ConnectionTest, CancelWithoutCancelWorkersClosesTheConnection) {
    std::unique_ptr<Connection> c = open(nullptr);
    ASSERT_NE(c, nullptr);
    std::optional<QueryResult> slow;
    const Connection::StatementId id = c->query("SELECT pg_sleep(30)", {}, [&](QueryResult r) { slow.emplace(r); });
    loop_.run_once(50);  // on the wire
    EXPECT_TRUE(c->cancel(id));
    ASSERT_TRUE(slow.has_value());
    EXPECT_TRUE(slow->status().is_cancelled());
    EXPECT_TRUE(c->is_broken());
}

TEST_F(ConnectionTest, TimeoutWithoutCancelWorkersClosesTheConnection) {
    std::unique_ptr<Connection> c = open(nullptr);
    ASSERT_NE(c, nullptr);
    QueryResult slow = run(*c, "SELECT pg_sleep(60)", {}, {.timeout_ns = 100 * base::kNanosPerMilli});
    EXPECT_TRUE(slow.status().is_timeout());
    EXPECT_TRUE(c->is_broken());
    QueryResult after = run(*c, "SELECT 1");
    EXPECT_TRUE(after.status().is_unavailable());
    EXPECT_TRUE(after.error().connection_lost);
}

TEST_F(ConnectionTest, PreparedStatementsAreCachedPerSqlAndTypes) {
    for (std::int64_t i = 0; i < 3; ++i) {
        QueryResult r = run(*conn_, "SELECT $1::int8 + 1", {i}, {.prepare = true});
        ASSERT_TRUE(r.is_ok()) << r.status().to_string();
        EXPECT_EQ(r->value(0, 0), Value(i + 1));
    }
    EXPECT_EQ(conn_->prepared_count(), 1u);
    QueryResult text = run(*conn_, "SELECT $1::int8 + 1", {std::string("41")}, {.prepare = true});
    ASSERT_TRUE(text.is_ok());
    EXPECT_EQ(text->value(0, 0), Value(std::int64_t{42}));
    EXPECT_EQ(conn_->prepared_count(), 2u);
    QueryResult bad = run(*conn_, "SELECT FROM WHERE", {}, {.prepare = true});
    EXPECT_EQ(bad.error().sqlstate, "42601");
    EXPECT_EQ(conn_->prepared_count(), 2u);  // a failed prepare is not cached
}

TEST_F(ConnectionTest, StalePreparedStatementsArePreparedAgain) {
    ASSERT_TRUE(run(*conn_, "CREATE TEMP TABLE stale_t (a int)").is_ok());
    ASSERT_TRUE(run(*conn_, "INSERT INTO stale_t VALUES (1)").is_ok());
    const QueryOptions prepared{.prepare = true};
    ASSERT_TRUE(run(*conn_, "SELECT * FROM stale_t", {}, prepared).is_ok());
    // The result type changes under the cached plan (0A000): prepared afresh and run again, outside a transaction.
    ASSERT_TRUE(run(*conn_, "ALTER TABLE stale_t ADD COLUMN b text DEFAULT 'x'").is_ok());
    QueryResult changed = run(*conn_, "SELECT * FROM stale_t", {}, prepared);
    ASSERT_TRUE(changed.is_ok()) << changed.status().to_string();
    EXPECT_EQ(changed->column_count(), 2u);
    EXPECT_EQ(changed->value(0, 1), Value(std::string("x")));
    // The server forgot every prepared statement (26000): the same.
    ASSERT_TRUE(run(*conn_, "DEALLOCATE ALL").is_ok());
    QueryResult forgotten = run(*conn_, "SELECT * FROM stale_t", {}, prepared);
    ASSERT_TRUE(forgotten.is_ok()) << forgotten.status().to_string();
    EXPECT_EQ(conn_->prepared_count(), 1u);
    // Inside a transaction the server aborted it: the caller hears, and the next use outside prepares afresh.
    ASSERT_TRUE(run(*conn_, "BEGIN").is_ok());
    ASSERT_TRUE(run(*conn_, "ALTER TABLE stale_t DROP COLUMN b").is_ok());
    QueryResult in_tx = run(*conn_, "SELECT * FROM stale_t", {}, prepared);
    EXPECT_EQ(in_tx.error().sqlstate, "0A000");
    ASSERT_TRUE(run(*conn_, "ROLLBACK").is_ok());
    ASSERT_TRUE(run(*conn_, "ALTER TABLE stale_t DROP COLUMN b").is_ok());
    QueryResult after = run(*conn_, "SELECT * FROM stale_t", {}, prepared);
    ASSERT_TRUE(after.is_ok()) << after.status().to_string();
    EXPECT_EQ(after->column_count(), 1u);
}

TEST_F(ConnectionTest, StatementsQueueInOrder) {
    std::vector<std::int64_t> seen;
    for (std::int64_t i = 0; i < 5; ++i) {
        conn_->query("SELECT $1::int8", {i}, [&](QueryResult r) {
            if (r.is_ok()) seen.push_back(std::get<std::int64_t>(r->value(0, 0)));
        });
    }
    EXPECT_EQ(conn_->pending(), 5u);
    ASSERT_TRUE(run_until(loop_, [&] { return seen.size() == 5; }));
    EXPECT_EQ(seen, (std::vector<std::int64_t>{0, 1, 2, 3, 4}));
}

TEST_F(ConnectionTest, PipelineKeepsOrderAndIsolatesAnError) {
    std::unique_ptr<Connection> c = open(&cancel_, /*pipeline=*/true);
    ASSERT_NE(c, nullptr);
    EXPECT_TRUE(c->pipeline());
    std::vector<std::string> seen;
    for (std::int64_t i = 0; i < 20; ++i) {
        // The statement at i == 10 divides by zero; only it fails.
        c->query("SELECT 100 / ($1::int8 - 10)", {i}, [&seen](QueryResult r) {
            seen.push_back(r.is_ok() ? std::to_string(std::get<std::int64_t>(r->value(0, 0))) : r.error().sqlstate);
        });
    }
    EXPECT_EQ(c->pending(), 20u);
    ASSERT_TRUE(run_until(loop_, [&] { return seen.size() == 20; }));
    const std::vector<std::string> want = {"-10",   "-11", "-12", "-14", "-16", "-20", "-25", "-33", "-50", "-100",
                                           "22012", "100", "50",  "33",  "25",  "20",  "16",  "14",  "12",  "11"};
    EXPECT_EQ(seen, want);
    EXPECT_TRUE(c->is_idle());
}

TEST_F(ConnectionTest, PipelineTransactionWithAnErrorInTheMiddleRollsBack) {
    std::unique_ptr<Connection> c = open(&cancel_, /*pipeline=*/true);
    ASSERT_NE(c, nullptr);
    ASSERT_TRUE(run(*c, "CREATE TEMP TABLE p (id int PRIMARY KEY)").is_ok());
    std::vector<std::string> seen;
    auto record = [&seen](QueryResult r) { seen.push_back(r.is_ok() ? r->command() : r.error().sqlstate); };
    c->begin(record);
    c->query("INSERT INTO p VALUES (1)", {}, record);
    c->query("INSERT INTO p VALUES (1)", {}, record);  // duplicate: the transaction fails here
    c->query("INSERT INTO p VALUES (2)", {}, record);
    c->commit(record);
    ASSERT_TRUE(run_until(loop_, [&] { return seen.size() == 5; }));
    EXPECT_EQ(seen, (std::vector<std::string>{"BEGIN", "INSERT 0 1", "23505", "25P02", "ROLLBACK"}));
    QueryResult count = run(*c, "SELECT count(*) FROM p");
    ASSERT_TRUE(count.is_ok());
    EXPECT_EQ(count->value(0, 0), Value(std::int64_t{0}));
}

TEST_F(ConnectionTest, PipelinePreparedStatementsAndTimeout) {
    std::unique_ptr<Connection> c = open(&cancel_, /*pipeline=*/true);
    ASSERT_NE(c, nullptr);
    std::vector<std::string> seen;
    auto record = [&seen](QueryResult r) {
        seen.push_back(r.is_ok() ? std::string(r->text(0, 0)) : r.status().to_string());
    };
    for (std::int64_t i = 0; i < 3; ++i)
        c->query("SELECT $1::int8 * 3", {i}, record, {.prepare = true});
    c->query("SELECT FROM WHERE", {}, record, {.prepare = true});
    c->query("SELECT pg_sleep(60)", {}, record, {.timeout_ns = 200 * base::kNanosPerMilli});
    c->query("SELECT 'after'", {}, record);
    ASSERT_TRUE(run_until(loop_, [&] { return seen.size() == 6; }));
    EXPECT_EQ(seen, (std::vector<std::string>{"0", "3", "6",
                                              "invalid_argument: syntax error at or near \"WHERE\" (SQLSTATE 42601)",
                                              "timeout: statement timed out after 200 ms", "after"}));
    EXPECT_EQ(c->prepared_count(), 1u);  // the failed one is forgotten
    EXPECT_FALSE(c->is_broken());
}

TEST_F(ConnectionTest, ListenReceivesNotifyFromAnotherConnection) {
    std::vector<Notification> got;
    conn_->set_notification_handler([&](const Notification& n) { got.push_back(n); });
    ASSERT_TRUE(run(*conn_, "LISTEN \"jobs Q\"").is_ok());
    std::unique_ptr<Connection> sender = open(&cancel_);
    ASSERT_NE(sender, nullptr);
    ASSERT_TRUE(run(*sender, "SELECT pg_notify($1, $2)", {std::string("jobs Q"), std::string("first \"1\"")}).is_ok());
    ASSERT_TRUE(run(*sender, "NOTIFY \"jobs Q\", 'second'").is_ok());
    ASSERT_TRUE(run(*sender, "NOTIFY other, 'not listened to'").is_ok());
    // Delivered while the listener is idle: nothing runs on it.
    ASSERT_TRUE(run_until(loop_, [&] { return got.size() == 2; }));
    EXPECT_EQ(got[0].channel, "jobs Q");
    EXPECT_EQ(got[0].payload, "first \"1\"");
    EXPECT_EQ(got[0].sender_pid, sender->backend_pid());
    EXPECT_EQ(got[1].payload, "second");
    // A NOTIFY of its own arrives in the same read as the statement's result, with nothing after it.
    ASSERT_TRUE(run(*conn_, "NOTIFY \"jobs Q\", 'own'").is_ok());
    ASSERT_TRUE(run_until(loop_, [&] { return got.size() == 3; }));
    EXPECT_EQ(got[2].payload, "own");
    EXPECT_EQ(got[2].sender_pid, conn_->backend_pid());
    ASSERT_TRUE(run(*conn_, "UNLISTEN *").is_ok());
    ASSERT_TRUE(run(*sender, "NOTIFY \"jobs Q\", 'late'").is_ok());
    ASSERT_TRUE(run(*conn_, "SELECT 1").is_ok());  // a round trip on the listener after the NOTIFY committed
    EXPECT_EQ(got.size(), 3u);
}

TEST_F(ConnectionTest, SavepointsUndoPartOfATransaction) {
    ASSERT_TRUE(run(*conn_, "CREATE TEMP TABLE sp (id int PRIMARY KEY)").is_ok());
    std::vector<std::string> seen;
    auto record = [&seen](QueryResult r) { seen.push_back(r.is_ok() ? r->command() : r.status().to_string()); };
    const std::string odd = "a\"; DROP TABLE sp; --";  // a name, never SQL
    conn_->begin(record);
    conn_->query("INSERT INTO sp VALUES (1)", {}, record);
    conn_->savepoint(odd, record);
    conn_->query("INSERT INTO sp VALUES (1)", {}, record);  // fails: only the part after the savepoint is lost
    conn_->rollback_to_savepoint(odd, record);
    conn_->query("INSERT INTO sp VALUES (2)", {}, record);
    conn_->release_savepoint(odd, record);
    conn_->savepoint(std::string("x\0y", 3), record);
    conn_->commit(record);
    ASSERT_TRUE(run_until(loop_, [&] { return seen.size() == 9; }));
    EXPECT_EQ(seen, (std::vector<std::string>{
                        "BEGIN", "INSERT 0 1", "SAVEPOINT",
                        "already_exists: duplicate key value violates unique constraint \"sp_pkey\" (SQLSTATE 23505)",
                        "ROLLBACK", "INSERT 0 1", "RELEASE",
                        "invalid_argument: a savepoint name must be non-empty text without NUL bytes", "COMMIT"}));
    std::optional<QueryResult> alone;
    conn_->savepoint("", [&](QueryResult r) { alone.emplace(std::move(r)); });
    EXPECT_FALSE(alone.has_value());  // never answered from inside the call
    ASSERT_TRUE(run_until(loop_, [&] { return alone.has_value(); }));
    EXPECT_TRUE(alone->status().is_invalid_argument());
    QueryResult rows = run(*conn_, "SELECT id FROM sp ORDER BY id");
    ASSERT_TRUE(rows.is_ok());
    ASSERT_EQ(rows->row_count(), 2u);
    EXPECT_EQ(rows->value(1, 0), Value(std::int64_t{2}));
}

TEST_F(ConnectionTest, ConnectFailureIsUnavailable) {
    std::optional<base::Status> status;
    auto c = Connection::connect(loop_, "host=/nonexistent-ss-dir port=5432 user=x dbname=x", {},
                                 [&](Connection&, base::Status s) { status = s; });
    ASSERT_TRUE(run_until(loop_, [&] { return status.has_value(); }));
    EXPECT_TRUE(status->is_unavailable());
    EXPECT_NE(status->message().find("/nonexistent-ss-dir/.s.PGSQL.5432"), std::string::npos) << status->message();
    EXPECT_TRUE(c->is_broken());
}

}  // namespace
}  // namespace slipstream::store::postgres
