// DbSession statements: cancelling one (inside a transaction too), COPY in and out on a held connection, and
// Database::copy_out through the pool.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <future>
#include <mutex>
#include <thread>

#include "store/database/database.h"
#include "store/database/db_test_support.h"
#include "store/postgres/pg_test_support.h"

namespace slipstream::store {
namespace {

using postgres::TestCluster;
using namespace db_testing;
using namespace std::chrono_literals;

template <typename R>
struct Pending {
    std::shared_ptr<std::promise<R>> promise = std::make_shared<std::promise<R>>();
    std::future<R> future = promise->get_future();
    std::function<void(R)> callback() {
        return [p = promise](R r) { p->set_value(std::move(r)); };
    }
    R get() {
        EXPECT_EQ(future.wait_for(10s), std::future_status::ready);  // not after a 30 s sleep
        return future.get();
    }
};

std::string database_url(TestCluster& cluster) {
    return "postgresql:" + cluster.conninfo();
}

TEST(SessionCancel, ARunningStatementInATransactionIsCancelledOnTheServer) {
    SLIPSTREAM_REQUIRE_CLUSTER(cluster);
    auto db = open(database_url(*cluster), DatabaseConfig{.url = "", .min_size = 1, .max_size = 2});
    auto observer = open(database_url(*cluster));
    ASSERT_TRUE(db && observer);
    ASSERT_TRUE(run(*db, "CREATE TABLE IF NOT EXISTS session_cancel_t (v int)").is_ok());
    ASSERT_TRUE(run(*db, "TRUNCATE session_cancel_t").is_ok());
    auto tx = session(*db);
    ASSERT_TRUE(tx);
    const Value pid = run(*tx, "SELECT pg_backend_pid()")->value(0, 0);
    auto activity = [&] {
        QueryResult r = run(*observer, "SELECT state || ': ' || query FROM pg_stat_activity WHERE pid = $1", {pid});
        return r.is_ok() && r->row_count() == 1 ? std::string(r->text(0, 0)) : std::string("?");
    };
    ASSERT_TRUE(run(*tx, "BEGIN").is_ok());
    ASSERT_TRUE(run(*tx, "INSERT INTO session_cancel_t VALUES (1)").is_ok());

    Pending<QueryResult> slow;
    std::shared_ptr<QueryCancel> handle = tx->query("SELECT pg_sleep(30)", {}, slow.callback());
    ASSERT_TRUE(eventually([&] { return activity() == "active: SELECT pg_sleep(30)"; }));
    std::thread([handle] { handle->cancel(); }).join();
    QueryResult r = slow.get();
    EXPECT_TRUE(r.status().is_cancelled()) << r.status().to_string();
    EXPECT_EQ(r.status().message(), "statement cancelled by the client");
    // The server stopped the sleep, which failed the transaction: the next statement says so, ROLLBACK ends it.
    QueryResult after = run(*tx, "SELECT 1");
    EXPECT_EQ(after.error().sqlstate, "25P02") << after.status().to_string();
    EXPECT_TRUE(run(*tx, "ROLLBACK").is_ok());
    QueryResult count = run(*tx, "SELECT count(*) FROM session_cancel_t");
    ASSERT_TRUE(count.is_ok());
    EXPECT_EQ(count->text(0, 0), "0");
    EXPECT_EQ(activity(), "idle: SELECT count(*) FROM session_cancel_t");  // the same backend goes on
    handle->cancel();                                                      // after the answer: nothing happens
}

TEST(SessionCancel, AQueuedStatementLeavesTheQueue) {
    SLIPSTREAM_REQUIRE_CLUSTER(cluster);
    auto db = open(database_url(*cluster));
    ASSERT_TRUE(db);
    auto s = session(*db);
    ASSERT_TRUE(s);
    const Value pid = run(*s, "SELECT pg_backend_pid()")->value(0, 0);
    Pending<QueryResult> first, second;
    auto h1 = s->query("SELECT pg_sleep(30)", {}, first.callback());
    auto h2 = s->query("SELECT 'queued'", {}, second.callback());
    h2->cancel();
    EXPECT_TRUE(second.get().status().is_cancelled());
    // A cancel request that reaches the server before the statement stops nothing (the driver then closes the
    // connection after Connection::kCancelGrace): cancel once it runs.
    ASSERT_TRUE(eventually([&] {
        QueryResult r = run(*db, "SELECT state FROM pg_stat_activity WHERE pid = $1", {pid});
        return r.is_ok() && r->row_count() == 1 && r->text(0, 0) == "active";
    }));
    h1->cancel();
    EXPECT_TRUE(first.get().status().is_cancelled());
    QueryResult next = run(*s, "SELECT 'next'");
    ASSERT_TRUE(next.is_ok()) << next.status().to_string();
    EXPECT_EQ(next->text(0, 0), "next");
    // Cancelled right after the call: answered at once (it never ran, was stopped on the server, or its
    // connection is closed after kCancelGrace when the request came too early).
    Pending<JsonResult> json;
    s->fetch_json("SELECT pg_sleep(30)", {}, json.callback())->cancel();
    EXPECT_TRUE(json.get().status().is_cancelled());
}

TEST(SessionCancel, SqliteSessionStatementIsInterrupted) {
    const auto path = std::filesystem::temp_directory_path() / ("ss-session-cancel-" + std::to_string(::getpid()));
    auto db = open("sqlite://" + path.string());
    ASSERT_TRUE(db);
    {
        auto s = session(*db);
        ASSERT_TRUE(s);
        Pending<QueryResult> endless;
        auto h = s->query(
            "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 1000000000000) "
            "SELECT count(*) FROM c",
            {}, endless.callback());
        std::this_thread::sleep_for(50ms);  // usually running by now; either way it is answered kCancelled
        h->cancel();
        EXPECT_TRUE(endless.get().status().is_cancelled());
        QueryResult next = run(*s, "SELECT 2");
        ASSERT_TRUE(next.is_ok()) << next.status().to_string();
        EXPECT_EQ(next->text(0, 0), "2");
        Pending<CopyCount> copy;
        s->copy_in("COPY t FROM STDIN", {}, copy.callback());
        EXPECT_EQ(copy.get().status().code(), base::StatusCode::kInvalidArgument);
    }
    db.reset();
    for (const char* suffix : {"", "-wal", "-shm"})
        std::filesystem::remove(path.string() + suffix);
}

TEST(SessionCopy, InAndOutInsideATransaction) {
    SLIPSTREAM_REQUIRE_CLUSTER(cluster);
    auto db = open(database_url(*cluster));
    ASSERT_TRUE(db);
    ASSERT_TRUE(run(*db, "CREATE TABLE IF NOT EXISTS session_copy_t (id int, name text)").is_ok());
    ASSERT_TRUE(run(*db, "TRUNCATE session_copy_t").is_ok());
    auto tx = session(*db);
    ASSERT_TRUE(tx);
    ASSERT_TRUE(run(*tx, "BEGIN").is_ok());
    std::vector<std::vector<Value>> rows;
    for (std::int64_t i = 1; i <= 1000; ++i)
        rows.push_back({i, "n\t" + std::to_string(i)});
    rows.push_back({std::int64_t{0}, std::monostate{}});
    Pending<CopyCount> in;
    tx->copy_in("COPY session_copy_t (id, name) FROM STDIN", std::move(rows), in.callback());
    CopyCount n = in.get();
    ASSERT_TRUE(n.is_ok()) << n.status().to_string();
    EXPECT_EQ(n.value(), 1001u);
    EXPECT_EQ(run(*db, "SELECT count(*) FROM session_copy_t")->text(0, 0), "0");  // not committed yet
    Pending<CopyCount> encoded;                                                   // data already in COPY's text format
    tx->copy_in_data("COPY session_copy_t (id, name) FROM STDIN", "1001\tdata\n1002\t\\N\n", encoded.callback());
    CopyCount two = encoded.get();
    ASSERT_TRUE(two.is_ok()) << two.status().to_string();
    EXPECT_EQ(two.value(), 2u);
    EXPECT_EQ(
        run(*tx, "SELECT count(*) FROM session_copy_t WHERE id > 1000 AND (name = 'data' OR name IS NULL)")->text(0, 0),
        "2");

    // COPY out on the same connection sees the transaction's rows.
    auto data = std::make_shared<std::string>();
    Pending<CopyCount> out;
    tx->copy_out(
        "COPY (SELECT id, name FROM session_copy_t WHERE id IN (0, 7) ORDER BY id) TO STDOUT",
        [data](std::string_view piece) {
            data->append(piece);
            return base::Status::ok();
        },
        out.callback());
    CopyCount got = out.get();
    ASSERT_TRUE(got.is_ok()) << got.status().to_string();
    EXPECT_EQ(got.value(), 2u);
    EXPECT_EQ(*data, "0\t\\N\n7\tn\\t7\n");
    ASSERT_TRUE(run(*tx, "ROLLBACK").is_ok());
    EXPECT_EQ(run(*db, "SELECT count(*) FROM session_copy_t")->text(0, 0), "0");

    // A bad row fails the COPY and the transaction; nothing is kept.
    ASSERT_TRUE(run(*tx, "BEGIN").is_ok());
    Pending<CopyCount> bad;
    tx->copy_in("COPY session_copy_t (id, name) FROM STDIN", {{std::string("x"), std::string("y")}}, bad.callback());
    EXPECT_EQ(bad.get().error().sqlstate, "22P02");
    EXPECT_EQ(run(*tx, "SELECT 1").error().sqlstate, "25P02");
    ASSERT_TRUE(run(*tx, "ROLLBACK").is_ok());
}

TEST(DatabaseCopyOut, RowsComeInTheAskedFormatAndASinkErrorEndsIt) {
    SLIPSTREAM_REQUIRE_CLUSTER(cluster);
    auto db = open(database_url(*cluster), DatabaseConfig{.url = "", .min_size = 1, .max_size = 1});
    ASSERT_TRUE(db);
    auto data = std::make_shared<std::string>();
    auto pieces = std::make_shared<int>(0);
    Pending<CopyCount> out;
    db->copy_out(
        "COPY (SELECT i, 'a,b' AS t FROM generate_series(1, 3) i) TO STDOUT WITH (FORMAT csv, HEADER)",
        [data, pieces](std::string_view piece) {
            data->append(piece);
            ++*pieces;
            return base::Status::ok();
        },
        out.callback());
    CopyCount n = out.get();
    ASSERT_TRUE(n.is_ok()) << n.status().to_string();
    EXPECT_EQ(n.value(), 3u);
    EXPECT_EQ(*data, "i,t\n1,\"a,b\"\n2,\"a,b\"\n3,\"a,b\"\n");
    EXPECT_EQ(*pieces, 4);  // one message per row, and the header's

    Pending<CopyCount> refused;
    db->copy_out(
        "COPY (SELECT generate_series(1, 100000)) TO STDOUT",
        [](std::string_view) { return base::Status::resource_exhausted("sink full"); }, refused.callback());
    CopyCount r = refused.get();
    EXPECT_EQ(r.status().code(), base::StatusCode::kResourceExhausted);
    EXPECT_EQ(r.status().message(), "sink full");
    EXPECT_TRUE(run(*db, "SELECT 1").is_ok());  // the one connection serves the next statement

    Pending<CopyCount> endless;
    auto h = db->copy_out(
        "COPY (SELECT pg_sleep(30)) TO STDOUT", [](std::string_view) { return base::Status::ok(); },
        endless.callback());
    h->cancel();
    EXPECT_TRUE(endless.get().status().is_cancelled());
    EXPECT_TRUE(run(*db, "SELECT 1").is_ok());

    auto lite = open("sqlite://:memory:");
    Pending<CopyCount> sqlite;
    lite->copy_out(
        "COPY t TO STDOUT", [](std::string_view) { return base::Status::ok(); }, sqlite.callback());
    EXPECT_EQ(sqlite.get().status().code(), base::StatusCode::kInvalidArgument);
}
TEST(SessionRunOnThread, SqliteStatementsRunInOneHopInCallOrder) {
    const auto path = std::filesystem::temp_directory_path() / ("ss-session-hop-" + std::to_string(::getpid()));
    auto db = open("sqlite://" + path.string());
    ASSERT_TRUE(db);
    {
        auto s = session(*db);
        ASSERT_TRUE(s);
        ASSERT_TRUE(run(*s, "CREATE TABLE hop (v INTEGER)").is_ok());
        // Queued after the statement called before it; every statement answered before query() returns.
        Pending<QueryResult> before;
        s->query("INSERT INTO hop VALUES (1)", {}, before.callback());
        std::promise<std::vector<std::string>> seen;
        s->run_on_thread([&seen](SyncStatements* c) {
            std::vector<std::string> out;
            if (c == nullptr) return seen.set_value(out);
            out.push_back(c->query("BEGIN IMMEDIATE", {}).status().to_string());
            out.push_back(c->query("INSERT INTO hop VALUES (?1)", {Value(std::int64_t{2})}).status().to_string());
            QueryResult sum = c->query("SELECT SUM(v) FROM hop", {});
            out.push_back(sum.is_ok() ? std::string(sum->text(0, 0)) : sum.status().to_string());
            out.push_back(c->query("INSERT INTO nowhere VALUES (1)", {}).is_ok() ? "ok" : "refused");
            out.push_back(c->query("COMMIT", {}).status().to_string());
            seen.set_value(out);
        });
        EXPECT_TRUE(before.get().is_ok());
        auto f = seen.get_future();
        ASSERT_EQ(f.wait_for(10s), std::future_status::ready);
        EXPECT_EQ(f.get(), (std::vector<std::string>{"ok", "ok", "3", "refused", "ok"}));
        EXPECT_EQ(run(*db, "SELECT COUNT(*) FROM hop")->text(0, 0), "2");
        s->close();
        std::promise<bool> after_close;
        s->run_on_thread([&after_close](SyncStatements* c) { after_close.set_value(c == nullptr); });
        EXPECT_TRUE(after_close.get_future().get());
    }
    db.reset();
    for (const char* suffix : {"", "-wal", "-shm"})
        std::filesystem::remove(path.string() + suffix);
}

TEST(SessionRunOnThread, PostgresGetsNoConnection) {
    SLIPSTREAM_REQUIRE_CLUSTER(cluster);
    auto db = open(database_url(*cluster));
    ASSERT_TRUE(db);
    auto s = session(*db);
    ASSERT_TRUE(s);
    bool called_with_null = false;
    s->run_on_thread([&called_with_null](SyncStatements* c) { called_with_null = c == nullptr; });
    EXPECT_TRUE(called_with_null);  // at once, on this thread
}

}  // namespace
}  // namespace slipstream::store
