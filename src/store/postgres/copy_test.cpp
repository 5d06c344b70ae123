// COPY and arrays against a real PostgreSQL server: a million rows in, escapes and NULLs round-tripping, a bad
// row in the middle, a large table streamed out, refusals (query(), pipeline mode), the pool's COPY, and
// arrays of every core type in fetch_json.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <optional>

#include "store/array_cell.h"
#include "store/postgres/connection.h"
#include "store/postgres/pg_test_support.h"
#include "store/postgres/pool.h"

namespace slipstream::store::postgres {
namespace {

using testing::run_until;

class CopyTest : public ::testing::Test {
  protected:
    void SetUp() override {
        SLIPSTREAM_REQUIRE_CLUSTER(cluster);
        cluster_ = cluster;
        conninfo_ = cluster->conninfo() + " options=-cTimeZone=UTC";
        conn_ = open(/*pipeline=*/false);
        ASSERT_NE(conn_, nullptr);
    }

    std::unique_ptr<Connection> open(bool pipeline) {
        std::optional<base::Status> status;
        ConnectOptions options{
            .timeout_ns = 10 * base::kNanosPerSecond, .pipeline = pipeline, .cancel_workers = &cancel_};
        auto c = Connection::connect(loop_, conninfo_, options, [&](Connection&, base::Status s) { status = s; });
        if (!run_until(loop_, [&] { return status.has_value(); }) || !status->is_ok()) {
            ADD_FAILURE() << "connect: " << (status ? status->to_string() : "no answer");
            return nullptr;
        }
        return c;
    }

    QueryResult run(Connection& c, std::string sql) {
        std::optional<QueryResult> result;
        c.query(std::move(sql), {}, [&](QueryResult r) { result.emplace(std::move(r)); });
        if (!run_until(loop_, [&] { return result.has_value(); })) return QueryResult(base::Status::internal("hung"));
        return std::move(*result);
    }

    // The first row's cells as text ("" for NULL), or the error.
    std::vector<std::string> row(Connection& c, std::string sql) {
        QueryResult r = run(c, std::move(sql));
        if (!r.is_ok()) return {r.status().to_string()};
        std::vector<std::string> cells;
        for (std::size_t i = 0; i < r->columns().size(); ++i)
            cells.emplace_back(r->text(0, i));
        return cells;
    }

    JsonResult json(Connection& c, std::string sql) {
        std::optional<JsonResult> result;
        c.fetch_json(std::move(sql), {}, [&](JsonResult r) { result.emplace(std::move(r)); });
        if (!run_until(loop_, [&] { return result.has_value(); })) return JsonResult(base::Status::internal("hung"));
        return std::move(*result);
    }

    CopyResult copy_in(Connection& c, std::string sql, CopySource source, QueryOptions options = {}) {
        std::optional<CopyResult> result;
        c.copy_in(
            std::move(sql), std::move(source), [&](CopyResult r) { result.emplace(std::move(r)); }, options);
        if (!run_until(
                loop_, [&] { return result.has_value(); }, 120 * base::kNanosPerSecond)) {
            return CopyResult(base::Status::internal("hung"));
        }
        return std::move(*result);
    }

    CopyResult copy_out(Connection& c, std::string sql, CopySink sink) {
        std::optional<CopyResult> result;
        c.copy_out(std::move(sql), std::move(sink), [&](CopyResult r) { result.emplace(std::move(r)); });
        if (!run_until(
                loop_, [&] { return result.has_value(); }, 120 * base::kNanosPerSecond)) {
            return CopyResult(base::Status::internal("hung"));
        }
        return std::move(*result);
    }

    TestCluster* cluster_ = nullptr;
    base::SystemClock clock_;
    net::EventLoop loop_{clock_};
    WorkerPool cancel_{{.threads = 1, .max_queue = 16, .name = "ss-pg-cancel"}};
    std::string conninfo_;
    std::unique_ptr<Connection> conn_;
};

TEST_F(CopyTest, MillionRowsStreamIn) {
    ASSERT_TRUE(run(*conn_, "CREATE TEMP TABLE big (id int8, name text, score float8)").is_ok());
    constexpr std::int64_t kRows = 1'000'000;
    std::int64_t next = 0;
    std::int64_t name_bytes = 0;
    RowSource rows = [&](std::vector<Value>& row) {
        if (next == kRows) return false;
        std::string name = "name-" + std::to_string(next);
        name_bytes += static_cast<std::int64_t>(name.size());
        row = {next, std::move(name), static_cast<double>(next) * 0.5};
        ++next;
        return true;
    };
    // The loop keeps serving other work while the COPY runs: a task posted at the 10th pull has run by the
    // 40th (copy_in yields after Connection::kCopyBytesPerTurn, about 16 pulls of 64 KiB).
    CopySource inner = copy_rows_from(rows);
    int pulls = 0;
    std::size_t largest = 0;
    bool posted_ran = false;
    bool ran_by_40 = false;
    CopySource source = [&](std::string& out) {
        ++pulls;
        if (pulls == 10) loop_.post([&] { posted_ran = true; });
        if (pulls == 40) ran_by_40 = posted_ran;
        base::Status s = inner(out);
        largest = std::max(largest, out.size());
        return s;
    };
    const base::MonoNanos start = base::mono_now();
    CopyResult r = copy_in(*conn_, "COPY big (id, name, score) FROM STDIN", source);
    const double seconds = static_cast<double>(base::mono_now() - start) / 1e9;
    ASSERT_TRUE(r.is_ok()) << r.status().to_string();
    EXPECT_EQ(r.value(), static_cast<std::uint64_t>(kRows));
    std::printf("[ info ] COPY FROM STDIN: %lld rows in %.2f s (%.0f rows/s), %d pulls\n",
                static_cast<long long>(kRows), seconds, static_cast<double>(kRows) / seconds, pulls);
    EXPECT_TRUE(ran_by_40);
    EXPECT_GT(pulls, 200);                // pulled in pieces as the socket drained, ...
    EXPECT_LT(largest, 64u * 1024 + 64);  // ... each about one chunk: no giant buffer
    EXPECT_TRUE(conn_->is_idle());

    const std::int64_t sum_ids = kRows * (kRows - 1) / 2;
    EXPECT_EQ(row(*conn_,
                  "SELECT count(*), sum(id), sum(length(name)), sum(score), "
                  "count(*) FILTER (WHERE name <> 'name-' || id OR score <> id * 0.5) FROM big"),
              (std::vector<std::string>{std::to_string(kRows), std::to_string(sum_ids), std::to_string(name_bytes),
                                        std::to_string(sum_ids / 2), "0"}));
}

// A source may hand over any amount at once: a chunk larger than one CopyData message is split.
TEST_F(CopyTest, OneLargeChunkIsSplitIntoMessages) {
    ASSERT_TRUE(run(*conn_, "CREATE TEMP TABLE chunked (i int8, t text)").is_ok());
    std::string all;
    for (std::int64_t i = 0; i < 100'000; ++i)
        encode_copy_text_row({i, std::string(20, 'z')}, all);
    ASSERT_GT(all.size(), 2'000'000u);
    bool given = false;
    CopyResult r = copy_in(*conn_, "COPY chunked FROM STDIN", [&](std::string& out) {
        if (!given) out = all;
        given = true;
        return base::Status::ok();
    });
    ASSERT_TRUE(r.is_ok()) << r.status().to_string();
    EXPECT_EQ(r.value(), 100'000u);
    EXPECT_EQ(row(*conn_, "SELECT count(*), sum(i), min(t) = max(t) FROM chunked"),
              (std::vector<std::string>{"100000", "4999950000", "t"}));
}

// Every character COPY escapes, NULLs in every column, and other awkward text: in by copy_in, out by copy_out
// and by SELECT, exactly as sent.
TEST_F(CopyTest, EscapesAndNullsRoundTripExactly) {
    ASSERT_TRUE(
        run(*conn_, "CREATE TEMP TABLE rt (id int8, t text, n int8, f float8, b bool, by bytea, j jsonb)").is_ok());
    std::string every_ascii;
    for (int c = 1; c < 128; ++c)
        every_ascii.push_back(static_cast<char>(c));
    const std::vector<std::string> texts = {
        "a\tb", "line1\nline2",      "cr\r",    "crlf\r\n",  "back\\slash", "\\N",  "\\.", "", " lead",
        "NULL", "h\u00e9llo \u2713", "\\\\x00", every_ascii, "\t\n\\",      "end\\"};
    std::vector<std::vector<Value>> rows;
    for (std::size_t i = 0; i < texts.size(); ++i) {
        rows.push_back({static_cast<std::int64_t>(i), texts[i], static_cast<std::int64_t>(i) - 7, 0.1 * i, i % 2 == 0,
                        Bytes{texts[i]}, std::string("{\"k\": \"") + (i % 2 ? "x" : "y\\\\n") + "\"}"});
    }
    rows.push_back({std::int64_t{100}, std::monostate{}, std::monostate{}, std::monostate{}, std::monostate{},
                    std::monostate{}, std::monostate{}});
    CopyResult in = copy_in(*conn_, "COPY rt FROM STDIN", copy_rows(rows, 100));
    ASSERT_TRUE(in.is_ok()) << in.status().to_string();
    EXPECT_EQ(in.value(), rows.size());

    // Out through COPY, parsed back: the text of every field as the server prints it.
    std::vector<std::vector<Value>> out;
    CopyResult r = copy_out(*conn_, "COPY (SELECT id, t, n, b FROM rt ORDER BY id) TO STDOUT", [&](std::string_view d) {
        std::vector<Value> fields;
        if (!parse_copy_text_row(d, fields)) return base::Status::invalid_argument("unparsable row");
        out.push_back(std::move(fields));
        return base::Status::ok();
    });
    ASSERT_TRUE(r.is_ok()) << r.status().to_string();
    EXPECT_EQ(r.value(), rows.size());
    ASSERT_EQ(out.size(), rows.size());
    for (std::size_t i = 0; i < texts.size(); ++i) {
        EXPECT_EQ(out[i], (std::vector<Value>{std::to_string(i), texts[i], std::to_string(static_cast<int>(i) - 7),
                                              std::string(i % 2 == 0 ? "t" : "f")}))
            << i;
    }
    EXPECT_EQ(out.back(),
              (std::vector<Value>{std::string("100"), std::monostate{}, std::monostate{}, std::monostate{}}));

    // And through SELECT: typed cells equal what went in.
    QueryResult sel = run(*conn_, "SELECT * FROM rt ORDER BY id");
    ASSERT_TRUE(sel.is_ok()) << sel.status().to_string();
    ASSERT_EQ(sel->row_count(), rows.size());
    for (std::size_t i = 0; i < texts.size(); ++i) {
        EXPECT_EQ(sel->value(i, 1), Value(texts[i])) << i;
        EXPECT_EQ(sel->value(i, 2), rows[i][2]) << i;
        EXPECT_EQ(sel->value(i, 3), rows[i][3]) << i;
        EXPECT_EQ(sel->value(i, 4), rows[i][4]) << i;
        EXPECT_EQ(sel->value(i, 5), Value(Bytes{texts[i]})) << i;
    }
    for (std::size_t c = 1; c < 7; ++c)
        EXPECT_TRUE(sel->is_null(texts.size(), c)) << c;
    EXPECT_EQ(row(*conn_, "SELECT j->>'k' FROM rt WHERE id = 0"), (std::vector<std::string>{"y\\n"}));
}

TEST_F(CopyTest, BadRowInTheMiddleIsATypedErrorAndTheConnectionGoesOn) {
    ASSERT_TRUE(run(*conn_, "CREATE TEMP TABLE ints (i int4)").is_ok());
    std::int64_t next = 0;
    CopySource source = copy_rows_from([&](std::vector<Value>& row) {
        if (next == 100'000) return false;
        ++next;
        row = {next == 50'000 ? Value(std::string("x")) : Value(next)};
        return true;
    });
    CopyResult r = copy_in(*conn_, "COPY ints FROM STDIN", source);
    ASSERT_FALSE(r.is_ok());
    EXPECT_TRUE(r.status().is_invalid_argument()) << r.status().to_string();
    EXPECT_EQ(r.error().sqlstate, "22P02");
    EXPECT_EQ(r.error().message, "invalid input syntax for type integer: \"x\"");
    EXPECT_FALSE(r.error().connection_lost);
    EXPECT_TRUE(conn_->is_idle());
    EXPECT_EQ(row(*conn_, "SELECT count(*) FROM ints"), (std::vector<std::string>{"0"}));

    // The source's own error aborts the COPY: the caller hears it, nothing is kept.
    int pulls = 0;
    CopyResult aborted = copy_in(*conn_, "COPY ints FROM STDIN", [&](std::string& out) {
        if (++pulls == 3) return base::Status::io_error("upload interrupted");
        out = "1\n2\n";
        return base::Status::ok();
    });
    ASSERT_FALSE(aborted.is_ok());
    EXPECT_EQ(aborted.status().to_string(), "io_error: upload interrupted");
    EXPECT_EQ(pulls, 3);
    EXPECT_EQ(row(*conn_, "SELECT count(*) FROM ints"), (std::vector<std::string>{"0"}));

    // A COPY the server refuses outright never pulls from the source.
    pulls = 0;
    CopyResult missing = copy_in(*conn_, "COPY no_such_table FROM STDIN", [&](std::string&) {
        ++pulls;
        return base::Status::ok();
    });
    EXPECT_EQ(missing.error().sqlstate, "42P01");
    EXPECT_EQ(pulls, 0);

    // Inside a transaction a failed COPY fails the transaction, as any statement does.
    ASSERT_TRUE(run(*conn_, "BEGIN").is_ok());
    CopyResult bad = copy_in(*conn_, "COPY ints FROM STDIN", copy_rows({{std::string("1.5")}}));
    EXPECT_EQ(bad.error().sqlstate, "22P02");
    EXPECT_TRUE(conn_->in_transaction());
    EXPECT_EQ(run(*conn_, "COMMIT")->command(), "ROLLBACK");
    CopyResult good = copy_in(*conn_, "COPY ints FROM STDIN", copy_rows({{std::int64_t{7}}, {std::monostate{}}}));
    ASSERT_TRUE(good.is_ok()) << good.status().to_string();
    EXPECT_EQ(good.value(), 2u);
    EXPECT_EQ(row(*conn_, "SELECT count(*), sum(i) FROM ints"), (std::vector<std::string>{"2", "7"}));
}

TEST_F(CopyTest, LargeTableStreamsOutToTheSink) {
    constexpr int kRows = 300'000;
    std::int64_t rows = 0;
    std::int64_t bytes = 0;
    bool in_order = true;
    std::vector<Value> fields;
    CopyResult r = copy_out(*conn_, "COPY (SELECT i, repeat('x', 40) || i FROM generate_series(1, 300000) i) TO STDOUT",
                            [&](std::string_view d) {
                                ++rows;
                                bytes += static_cast<std::int64_t>(d.size());
                                in_order = in_order && parse_copy_text_row(d, fields) &&
                                           fields[0] == Value(std::to_string(rows)) && d.back() == '\n';
                                return base::Status::ok();
                            });
    ASSERT_TRUE(r.is_ok()) << r.status().to_string();
    EXPECT_EQ(r.value(), static_cast<std::uint64_t>(kRows));
    EXPECT_EQ(rows, kRows);
    EXPECT_TRUE(in_order);
    std::int64_t want_bytes = 0;
    for (int i = 1; i <= kRows; ++i)
        want_bytes += 2 * static_cast<std::int64_t>(std::to_string(i).size()) + 40 + 2;
    EXPECT_EQ(bytes, want_bytes);

    // A sink that fails stops delivery; the rest is read and dropped, and the connection goes on.
    int seen = 0;
    CopyResult stopped = copy_out(*conn_, "COPY (SELECT generate_series(1, 100000)) TO STDOUT", [&](std::string_view) {
        return ++seen == 10 ? base::Status::cancelled("client went away") : base::Status::ok();
    });
    EXPECT_EQ(stopped.status().to_string(), "cancelled: client went away");
    EXPECT_EQ(seen, 10);
    EXPECT_EQ(row(*conn_, "SELECT 'after'"), (std::vector<std::string>{"after"}));
}

TEST_F(CopyTest, QueryAndPipelineRefuseCopy) {
    ASSERT_TRUE(run(*conn_, "CREATE TEMP TABLE c (i int)").is_ok());
    QueryResult in = run(*conn_, "copy c from stdin");
    EXPECT_EQ(in.status().to_string(),
              "invalid_argument: COPY ... FROM STDIN runs through Connection::copy_in, not query() or fetch_json()");
    JsonResult out = json(*conn_, "/* x */ COPY c TO STDOUT");
    EXPECT_EQ(out.status().to_string(),
              "invalid_argument: COPY ... TO STDOUT runs through Connection::copy_out, not query() or fetch_json()");
    CopyResult wrong = copy_in(*conn_, "COPY c TO STDOUT", copy_rows({}));
    EXPECT_EQ(wrong.status().to_string(), "invalid_argument: copy_in runs COPY ... FROM STDIN statements only");
    CopyResult select = copy_out(*conn_, "SELECT 1", [](std::string_view) { return base::Status::ok(); });
    EXPECT_EQ(select.status().to_string(), "invalid_argument: copy_out runs COPY ... TO STDOUT statements only");
    EXPECT_EQ(row(*conn_, "SELECT 1"), (std::vector<std::string>{"1"}));

    std::unique_ptr<Connection> p = open(/*pipeline=*/true);
    ASSERT_NE(p, nullptr);
    std::vector<std::string> seen;
    p->query("SELECT 1", {}, [&](QueryResult r) { seen.push_back(r.is_ok() ? "1" : r.status().to_string()); });
    p->copy_in("COPY c FROM STDIN", copy_rows({{std::int64_t{1}}}),
               [&](CopyResult r) { seen.push_back(r.status().message().substr(0, 40)); });
    p->query("COPY c TO STDOUT", {}, [&](QueryResult r) { seen.push_back(r.status().message().substr(0, 18)); });
    p->query("SELECT 2", {}, [&](QueryResult r) { seen.push_back(r.is_ok() ? "2" : r.status().to_string()); });
    ASSERT_TRUE(run_until(loop_, [&] { return seen.size() == 4; }));
    EXPECT_EQ(seen,
              (std::vector<std::string>{"1", "COPY cannot run on a pipeline-mode conne", "COPY ... TO STDOUT", "2"}));
    EXPECT_FALSE(p->is_broken());
}

// A COPY whose data never ends: the timeout answers the caller, the source is not pulled again, the server's
// COPY is ended (nothing kept), and the connection serves the next statement.
TEST_F(CopyTest, TimeoutEndsAnEndlessCopy) {
    ASSERT_TRUE(run(*conn_, "CREATE TEMP TABLE endless (i int8)").is_ok());
    std::int64_t next = 0;
    bool answered = false;
    std::int64_t pulled_at_answer = -1;
    CopySource endless = copy_rows_from([&](std::vector<Value>& row) {
        row = {next++};
        return true;
    });
    conn_->copy_in("COPY endless FROM STDIN", endless,
                   [&](CopyResult r) {
                       EXPECT_EQ(r.status().to_string(), "timeout: statement timed out after 300 ms");
                       answered = true;
                       pulled_at_answer = next;
                   },
                   {.timeout_ns = 300 * base::kNanosPerMilli});
    ASSERT_TRUE(run_until(loop_, [&] { return answered; }));
    EXPECT_GT(pulled_at_answer, 0);
    EXPECT_EQ(row(*conn_, "SELECT count(*) FROM endless"), (std::vector<std::string>{"0"}));
    EXPECT_EQ(next, pulled_at_answer);
    EXPECT_FALSE(conn_->is_broken());
}

TEST_F(CopyTest, PoolRunsCopyBothWays) {
    PoolOptions o;
    o.conninfo = cluster_->conninfo();
    o.min_size = 1;
    o.max_size = 2;
    Pool pool(loop_, o, &cancel_);
    // A real table: the pool's connections are not this test's connection.
    ASSERT_TRUE(run(*conn_, "DROP TABLE IF EXISTS pool_copy").is_ok());
    ASSERT_TRUE(run(*conn_, "CREATE TABLE pool_copy (i int8, t text)").is_ok());
    std::optional<CopyResult> in;
    pool.copy_in("COPY pool_copy FROM STDIN", copy_rows({{std::int64_t{1}, std::string("a")}, {std::int64_t{2}, {}}}),
                 [&](CopyResult r) { in.emplace(std::move(r)); });
    ASSERT_TRUE(run_until(loop_, [&] { return in.has_value(); }));
    ASSERT_TRUE(in->is_ok()) << in->status().to_string();
    EXPECT_EQ(in->value(), 2u);
    std::string data;
    std::optional<CopyResult> out;
    pool.copy_out(
        "COPY pool_copy TO STDOUT (FORMAT csv)",
        [&](std::string_view d) {
            data.append(d);
            return base::Status::ok();
        },
        [&](CopyResult r) { out.emplace(std::move(r)); });
    ASSERT_TRUE(run_until(loop_, [&] { return out.has_value(); }));
    ASSERT_TRUE(out->is_ok()) << out->status().to_string();
    EXPECT_EQ(out->value(), 2u);
    EXPECT_EQ(data, "1,a\n2,\n");
    EXPECT_TRUE(run_until(loop_, [&] { return pool.stats().idle == pool.stats().open; }));
    ASSERT_TRUE(run(*conn_, "DROP TABLE pool_copy").is_ok());
}

TEST_F(CopyTest, ArraysInFetchJson) {
    JsonResult j = json(*conn_,
                        "SELECT '{1,2,NULL}'::int2[] a2, '{-2147483648,NULL}'::int4[] a4, "
                        "'{9223372036854775807}'::int8[] a8, '{1.5,NULL}'::float4[] f4, '{0.1,-2.5e-05}'::float8[] f8, "
                        "'{1.50,NaN}'::numeric[] n, '{t,f,NULL}'::bool[] b, "
                        "ARRAY['a,b', 'c\"d', 'e\\f', NULL, 'NULL', '', ' sp ', '{x}'] t, "
                        "'{v,\"w x\"}'::varchar[] v, '{a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11}'::uuid[] u, "
                        "'{2024-02-29}'::date[] d, '{\"2024-01-02 03:04:05\"}'::timestamp[] ts, "
                        "'{\"2024-01-02 03:04:05+02\"}'::timestamptz[] tz, "
                        "ARRAY['{\"a\": [1, 2]}'::json, NULL] j, ARRAY['{\"k\": true,  \"a\": 1}'::jsonb] jb, "
                        "'{}'::int4[] e, '{{1,2},{3,4}}'::int4[] m, '[0:1]={7,8}'::int4[] lb, "
                        "'{{\"a\",\"b\"},{NULL,\"\\\\\"}}'::text[] mt, ARRAY['\\x00ff'::bytea] bya, "
                        "NULL::int4[] nul");
    ASSERT_TRUE(j.is_ok()) << j.status().to_string();
    EXPECT_EQ(j.value(),
              "[{\"a2\":[1,2,null],\"a4\":[-2147483648,null],\"a8\":[9223372036854775807],\"f4\":[1.5,null],"
              "\"f8\":[0.1,-2.5e-05],\"n\":[\"1.50\",\"NaN\"],\"b\":[true,false,null],"
              "\"t\":[\"a,b\",\"c\\\"d\",\"e\\\\f\",null,\"NULL\",\"\",\" sp \",\"{x}\"],\"v\":[\"v\",\"w x\"],"
              "\"u\":[\"a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11\"],\"d\":[\"2024-02-29\"],"
              "\"ts\":[\"2024-01-02 03:04:05\"],\"tz\":[\"2024-01-02 01:04:05+00\"],\"j\":[{\"a\":[1,2]},null],"
              "\"jb\":[{\"a\":1,\"k\":true}],\"e\":[],\"m\":[[1,2],[3,4]],\"lb\":[7,8],"
              "\"mt\":[[\"a\",\"b\"],[null,\"\\\\\"]],\"bya\":[\"AP8=\"],\"nul\":null}]");
    JsonResult nan = json(*conn_, "SELECT '{1,NaN}'::float8[] x");
    EXPECT_TRUE(nan.status().is_out_of_range()) << nan.status().to_string();

    // Typed cells: arrays are kArray cells with their element kind; value() is their JSON.
    QueryResult r = run(*conn_,
                        "SELECT '{1,2,NULL}'::int4[] a, '{{\"a b\"}}'::text[] t, '{1,NaN}'::float8[] f, "
                        "'{}'::int4[] e, ARRAY['\\x00ff'::bytea] b");
    ASSERT_TRUE(r.is_ok()) << r.status().to_string();
    EXPECT_EQ(r->columns()[0].type, ColumnType::kArray);
    EXPECT_EQ(r->columns()[0].element, ColumnType::kInt);
    EXPECT_EQ(r->columns()[1].element, ColumnType::kText);
    EXPECT_EQ(r->value(0, 0), Value(std::string("[1,2,null]")));
    EXPECT_EQ(r->value(0, 1), Value(std::string("[[\"a b\"]]")));
    EXPECT_EQ(r->value(0, 3), Value(std::string("[]")));
    EXPECT_EQ(r->value(0, 4), Value(std::string("[\"AP8=\"]")));
    struct Collect final : ArrayCellVisitor {
        std::string seen;
        base::Status begin() override { return seen += "[", base::Status::ok(); }
        base::Status end() override { return seen += "]", base::Status::ok(); }
        base::Status null() override { return seen += "N,", base::Status::ok(); }
        base::Status element(std::string_view b) override { return seen += std::string(b) + ",", base::Status::ok(); }
    } collect;
    ASSERT_TRUE(read_array_cell(r->text(0, 2), collect).is_ok());
    EXPECT_EQ(collect.seen, "[1,NaN,]");  // NaN stays an element (only JSON refuses it)
}

}  // namespace
}  // namespace slipstream::store::postgres
