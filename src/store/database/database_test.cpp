// Database: URLs, both backends from a foreign thread, sessions (transactions, LISTEN), readiness, limits.
#include "store/database/database.h"
#include "store/copy_text.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <functional>
#include <future>
#include <thread>

#include "store/database/db_test_support.h"
#include "store/postgres/pg_test_support.h"

namespace slipstream::store {
namespace {

using postgres::TestCluster;
using namespace db_testing;
using namespace std::chrono_literals;

class SqliteFile : public ::testing::Test {
  protected:
    void SetUp() override {
        path_ = std::filesystem::temp_directory_path() /
                ("ss-db-" + std::to_string(::getpid()) + "-" +
                 ::testing::UnitTest::GetInstance()->current_test_info()->name() + ".db");
    }
    void TearDown() override {
        for (const char* suffix : {"", "-wal", "-shm"})
            std::filesystem::remove(path_.string() + suffix);
    }
    std::string url() const { return "sqlite://" + path_.string(); }
    std::filesystem::path path_;
};

TEST(DatabaseUrl, SchemesAndLocations) {
    auto pg = parse_database_url("postgresql://u@h:5/db");
    ASSERT_TRUE(pg.is_ok());
    EXPECT_EQ(pg->backend, Backend::kPostgres);
    EXPECT_EQ(pg->location, "postgresql://u@h:5/db");
    EXPECT_EQ(parse_database_url("postgres://h/db")->backend, Backend::kPostgres);
    EXPECT_EQ(parse_database_url("postgresql:host=/tmp port=5")->location, "host=/tmp port=5");
    EXPECT_EQ(parse_database_url("sqlite:///var/app.db")->location, "/var/app.db");
    EXPECT_EQ(parse_database_url("sqlite://app.db")->location, "app.db");
    EXPECT_EQ(parse_database_url("sqlite://:memory:")->location, ":memory:");
    EXPECT_EQ(parse_database_url("sqlite://")->location, ":memory:");
    EXPECT_EQ(parse_database_url("mysql://h/db").status().code(), base::StatusCode::kInvalidArgument);
}

TEST(DatabaseConfigCheck, BadLimitsAreRefused) {
    DatabaseConfig c{.url = "sqlite://:memory:", .min_size = 3, .max_size = 2};
    EXPECT_EQ(Database::open(c).status().code(), base::StatusCode::kInvalidArgument);
    c = DatabaseConfig{.url = "sqlite://:memory:", .max_size = 0};
    EXPECT_EQ(Database::open(c).status().code(), base::StatusCode::kInvalidArgument);
    c = DatabaseConfig{.url = "sqlite://:memory:", .acquire_timeout_ns = 0};
    EXPECT_EQ(Database::open(c).status().code(), base::StatusCode::kInvalidArgument);
}

TEST_F(SqliteFile, QueriesAndJsonFromAnotherThread) {
    auto db = open(url());
    ASSERT_TRUE(db);
    EXPECT_TRUE(db->ready());
    ASSERT_TRUE(run(*db, "CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT)").is_ok());
    ASSERT_TRUE(
        run(*db, "INSERT INTO t VALUES (?1, ?2), (?3, ?4)", {1, std::string("a"), 2, std::string("b")}).is_ok());
    QueryResult r = run(*db, "SELECT name FROM t WHERE id = ?1", {std::int64_t{2}});
    ASSERT_TRUE(r.is_ok());
    EXPECT_EQ(r->text(0, 0), "b");
    auto p = std::make_shared<std::promise<JsonResult>>();
    db->fetch_json("SELECT id, name FROM t ORDER BY id", {}, [p](JsonResult j) { p->set_value(std::move(j)); });
    JsonResult j = p->get_future().get();
    ASSERT_TRUE(j.is_ok());
    EXPECT_EQ(j.value(), R"([{"id":1,"name":"a"},{"id":2,"name":"b"}])");
}

TEST_F(SqliteFile, SessionTransactionIsRolledBackWhenClosedOpen) {
    auto db = open(url());
    ASSERT_TRUE(db);
    ASSERT_TRUE(run(*db, "CREATE TABLE t (v INTEGER)").is_ok());
    auto s = session(*db);
    ASSERT_TRUE(s);
    ASSERT_TRUE(run(*s, "BEGIN").is_ok());
    ASSERT_TRUE(run(*s, "INSERT INTO t VALUES (1)").is_ok());
    EXPECT_EQ(run(*s, "SELECT count(*) FROM t")->text(0, 0), "1");
    s.reset();  // closed inside the transaction
    EXPECT_EQ(run(*db, "SELECT count(*) FROM t")->text(0, 0), "0");
    auto committed = session(*db);
    ASSERT_TRUE(run(*committed, "BEGIN").is_ok());
    ASSERT_TRUE(run(*committed, "INSERT INTO t VALUES (2)").is_ok());
    ASSERT_TRUE(run(*committed, "COMMIT").is_ok());
    committed->close();
    EXPECT_EQ(run(*db, "SELECT count(*) FROM t")->text(0, 0), "1");
}

TEST(DatabaseSqlite, MemoryDatabaseRefusesSessions) {
    auto db = open("sqlite://:memory:");
    ASSERT_TRUE(db);
    base::Status s;
    EXPECT_EQ(session(*db, &s), nullptr);
    EXPECT_EQ(s.code(), base::StatusCode::kInvalidArgument);
    EXPECT_NE(s.message().find("database file"), std::string::npos);
}

TEST_F(SqliteFile, SessionsAreCapped) {
    auto db = open(url(), DatabaseConfig{.url = "", .max_sessions = 2});
    ASSERT_TRUE(db);
    auto a = session(*db);
    auto b = session(*db);
    base::Status s;
    EXPECT_EQ(session(*db, &s), nullptr);
    EXPECT_EQ(s.code(), base::StatusCode::kResourceExhausted);
    a.reset();
    EXPECT_NE(session(*db), nullptr);
}

TEST_F(SqliteFile, CancelAnswersAtOnceAndTheWorkerGoesOn) {
    auto db = open(url(), DatabaseConfig{.url = "", .min_size = 1, .max_size = 1});  // one worker
    ASSERT_TRUE(db);
    const std::string endless =
        "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 1000000000000) SELECT count(*) FROM "
        "c";
    auto p1 = std::make_shared<std::promise<QueryResult>>();
    auto p2 = std::make_shared<std::promise<JsonResult>>();
    auto f1 = p1->get_future();
    auto f2 = p2->get_future();
    std::shared_ptr<QueryCancel> running = db->query(endless, {}, [p1](QueryResult r) { p1->set_value(std::move(r)); });
    std::shared_ptr<QueryCancel> queued =
        db->fetch_json(endless, {}, [p2](JsonResult r) { p2->set_value(std::move(r)); });
    queued->cancel();   // behind the first on the one worker: dropped, answered now
    running->cancel();  // interrupted (or dropped, had the worker not reached it yet)
    ASSERT_EQ(f2.wait_for(10s), std::future_status::ready);
    ASSERT_EQ(f1.wait_for(10s), std::future_status::ready);
    EXPECT_EQ(f1.get().status().to_string(), "cancelled: statement cancelled by the client");
    EXPECT_EQ(f2.get().status().to_string(), "cancelled: statement cancelled by the client");
    QueryResult next = run(*db, "SELECT 5");  // the worker is free again: no minutes of counting
    ASSERT_TRUE(next.is_ok()) << next.status().to_string();
    EXPECT_EQ(next->value(0, 0), Value(std::int64_t{5}));
}

TEST(DatabasePostgres, QueriesSessionsAndNotifications) {
    SLIPSTREAM_REQUIRE_CLUSTER(cluster);
    auto db = open("postgresql:" + cluster->conninfo(), DatabaseConfig{.url = "", .min_size = 1, .max_size = 3});
    ASSERT_TRUE(db);
    EXPECT_TRUE(eventually([&] { return db->ready(); }));
    ASSERT_TRUE(run(*db, "CREATE TABLE IF NOT EXISTS facade_t (v int)").is_ok());
    ASSERT_TRUE(run(*db, "TRUNCATE facade_t").is_ok());
    QueryResult r = run(*db, "SELECT $1::int + 1", {std::int64_t{41}});
    ASSERT_TRUE(r.is_ok());
    EXPECT_EQ(r->text(0, 0), "42");

    auto tx = session(*db);
    ASSERT_TRUE(tx);
    ASSERT_TRUE(run(*tx, "BEGIN").is_ok());
    ASSERT_TRUE(run(*tx, "INSERT INTO facade_t VALUES (1)").is_ok());
    EXPECT_EQ(run(*db, "SELECT count(*) FROM facade_t")->text(0, 0), "0");  // not visible outside before COMMIT
    tx.reset();                                                             // closed open: rolled back
    EXPECT_TRUE(eventually([&] { return run(*db, "SELECT count(*) FROM facade_t")->text(0, 0) == "0"; }));

    auto listener = session(*db);
    ASSERT_TRUE(listener);
    auto got = std::make_shared<std::promise<DbNotification>>();
    listener->set_notification_handler([got](const DbNotification& n) { got->set_value(n); });
    ASSERT_TRUE(run(*listener, "LISTEN facade_channel").is_ok());
    ASSERT_TRUE(run(*db, "SELECT pg_notify('facade_channel', 'hello')").is_ok());
    auto f = got->get_future();
    ASSERT_EQ(f.wait_for(10s), std::future_status::ready);
    DbNotification n = f.get();
    EXPECT_EQ(n.channel, "facade_channel");
    EXPECT_EQ(n.payload, "hello");
    listener.reset();
}

TEST(DatabasePostgres, CancelStopsARunningStatementFromAnyThread) {
    SLIPSTREAM_REQUIRE_CLUSTER(cluster);
    // One connection: the statement after the cancelled one runs on the same backend.
    auto db = open("postgresql:" + cluster->conninfo(), DatabaseConfig{.url = "", .min_size = 1, .max_size = 1});
    auto observer = open("postgresql:" + cluster->conninfo(), DatabaseConfig{.url = "", .min_size = 1, .max_size = 1});
    ASSERT_TRUE(db && observer);
    QueryResult who = run(*db, "SELECT pg_backend_pid()");
    ASSERT_TRUE(who.is_ok()) << who.status().to_string();
    const Value pid = who->value(0, 0);
    auto activity = [&] {
        QueryResult r = run(*observer, "SELECT state || ': ' || query FROM pg_stat_activity WHERE pid = $1", {pid});
        return r.is_ok() && r->row_count() == 1 ? std::string(r->text(0, 0)) : std::string("?");
    };

    auto p = std::make_shared<std::promise<QueryResult>>();
    auto f = p->get_future();
    std::shared_ptr<QueryCancel> handle =
        db->query("SELECT pg_sleep(30)", {}, [p](QueryResult r) { p->set_value(std::move(r)); });
    ASSERT_TRUE(eventually([&] { return activity() == "active: SELECT pg_sleep(30)"; }));
    std::thread([handle] { handle->cancel(); }).join();
    ASSERT_EQ(f.wait_for(10s), std::future_status::ready);  // at once, not after the 30 s sleep
    QueryResult slow = f.get();
    EXPECT_TRUE(slow.status().is_cancelled()) << slow.status().to_string();
    EXPECT_EQ(slow.status().message(), "statement cancelled by the client");
    EXPECT_TRUE(handle->requested());
    // The server stopped the sleep: the one connection serves the next statement.
    QueryResult next = run(*db, "SELECT 'next'");
    ASSERT_TRUE(next.is_ok()) << next.status().to_string();
    EXPECT_EQ(next->text(0, 0), "next");
    EXPECT_EQ(activity(), "idle: SELECT 'next'");
    handle->cancel();  // again, after the answer: nothing happens

    // Cancelled right after the call: answered kCancelled (it never ran, or was stopped on the server).
    auto p2 = std::make_shared<std::promise<JsonResult>>();
    auto f2 = p2->get_future();
    db->fetch_json("SELECT pg_sleep(30)", {}, [p2](JsonResult r) { p2->set_value(std::move(r)); })->cancel();
    ASSERT_EQ(f2.wait_for(10s), std::future_status::ready);
    EXPECT_TRUE(f2.get().status().is_cancelled());
    QueryResult last = run(*db, "SELECT 'last'");
    ASSERT_TRUE(last.is_ok()) << last.status().to_string();
    EXPECT_EQ(last->text(0, 0), "last");
    db.reset();
    handle->cancel();  // after the Database is gone: nothing happens
}

CopyCount copy(Database& db, std::string sql, std::vector<std::vector<Value>> rows) {
    auto p = std::make_shared<std::promise<CopyCount>>();
    auto f = p->get_future();
    db.copy_in(std::move(sql), std::move(rows), [p](CopyCount r) { p->set_value(std::move(r)); });
    EXPECT_EQ(f.wait_for(60s), std::future_status::ready);
    return f.get();
}

TEST(DatabasePostgres, CopyInTakesRowsAndReportsBadOnes) {
    SLIPSTREAM_REQUIRE_CLUSTER(cluster);
    auto db = open("postgresql:" + cluster->conninfo());
    ASSERT_TRUE(db);
    ASSERT_TRUE(run(*db, "CREATE TABLE IF NOT EXISTS facade_copy (id int, name text)").is_ok());
    ASSERT_TRUE(run(*db, "TRUNCATE facade_copy").is_ok());
    std::vector<std::vector<Value>> rows;
    for (std::int64_t i = 0; i < 10000; ++i)
        rows.push_back({i, std::string("n\t\n\\") + std::to_string(i)});
    rows.push_back({std::int64_t{-1}, std::monostate{}});
    CopyCount n = copy(*db, "COPY facade_copy (id, name) FROM STDIN", std::move(rows));
    ASSERT_TRUE(n.is_ok()) << n.status().to_string();
    EXPECT_EQ(n.value(), 10001u);
    EXPECT_EQ(run(*db, "SELECT count(*), count(name), max(id) FROM facade_copy")->text(0, 0), "10001");
    EXPECT_EQ(run(*db, "SELECT name FROM facade_copy WHERE id = 7")->text(0, 0), "n\t\n\\7");
    CopyCount bad = copy(*db, "COPY facade_copy (id, name) FROM STDIN", {{std::string("x"), std::string("y")}});
    ASSERT_FALSE(bad.is_ok());
    EXPECT_EQ(bad.error().sqlstate, "22P02");
    EXPECT_EQ(run(*db, "SELECT count(*) FROM facade_copy")->text(0, 0), "10001");
}

TEST(DatabasePostgres, CopyInDataTakesEncodedRows) {
    SLIPSTREAM_REQUIRE_CLUSTER(cluster);
    auto db = open("postgresql:" + cluster->conninfo());
    ASSERT_TRUE(db);
    ASSERT_TRUE(run(*db, "CREATE TABLE IF NOT EXISTS facade_copy_data (id int, name text)").is_ok());
    ASSERT_TRUE(run(*db, "TRUNCATE facade_copy_data").is_ok());
    std::string data;
    for (std::int64_t i = 0; i < 50000; ++i)  // several 256 KiB pieces
        encode_copy_text_row({i, std::string("name ") + std::to_string(i)}, data);
    auto p = std::make_shared<std::promise<CopyCount>>();
    auto f = p->get_future();
    db->copy_in_data("COPY facade_copy_data (id, name) FROM STDIN", std::move(data),
                     [p](CopyCount r) { p->set_value(std::move(r)); });
    ASSERT_EQ(f.wait_for(60s), std::future_status::ready);
    CopyCount n = f.get();
    ASSERT_TRUE(n.is_ok()) << n.status().to_string();
    EXPECT_EQ(n.value(), 50000u);
    EXPECT_EQ(run(*db, "SELECT name FROM facade_copy_data WHERE id = 49999")->text(0, 0), "name 49999");
}

CopyCount copy_stream(Database& db, std::string sql, std::shared_ptr<CopyStream> stream,
                      const std::function<void()>& produce, std::int64_t timeout_ns = -1) {
    auto p = std::make_shared<std::promise<CopyCount>>();
    auto f = p->get_future();
    db.copy_in_stream(
        std::move(sql), std::move(stream), [p](CopyCount r) { p->set_value(std::move(r)); }, timeout_ns);
    produce();
    EXPECT_EQ(f.wait_for(60s), std::future_status::ready);
    return f.get();
}

TEST(DatabasePostgres, CopyInStreamSendsPiecesAsTheProducerMakesThem) {
    SLIPSTREAM_REQUIRE_CLUSTER(cluster);
    auto db = open("postgresql:" + cluster->conninfo(), DatabaseConfig{.url = "", .min_size = 1, .max_size = 1});
    ASSERT_TRUE(db);
    ASSERT_TRUE(run(*db, "CREATE TABLE IF NOT EXISTS facade_stream (id int, name text)").is_ok());
    ASSERT_TRUE(run(*db, "TRUNCATE facade_stream").is_ok());
    // Pieces from another thread, some while the connection waits for them; rows split across pieces.
    auto stream = std::make_shared<CopyStream>();
    CopyCount n = copy_stream(*db, "COPY facade_stream (id, name) FROM STDIN", stream, [&] {
        std::thread producer([stream] {
            for (int i = 0; i < 200; ++i) {
                std::string row = std::to_string(i) + "\tname " + std::to_string(i) + "\n";
                stream->push(row.substr(0, 3));
                std::this_thread::yield();
                stream->push(row.substr(3));
            }
            stream->finish();
        });
        producer.join();
    });
    ASSERT_TRUE(n.is_ok()) << n.status().to_string();
    EXPECT_EQ(n.value(), 200u);
    EXPECT_EQ(run(*db, "SELECT name FROM facade_stream WHERE id = 199")->text(0, 0), "name 199");

    // fail() aborts the COPY: nothing is kept.
    auto failing = std::make_shared<CopyStream>();
    CopyCount aborted = copy_stream(*db, "COPY facade_stream (id, name) FROM STDIN", failing, [&] {
        failing->push("500\tkept?\n");
        failing->fail("the producer gave up");
    });
    EXPECT_FALSE(aborted.is_ok());
    EXPECT_EQ(run(*db, "SELECT count(*) FROM facade_stream")->text(0, 0), "200");

    // A stream that never delivers: the deadline ends the COPY, and the connection serves the next statement.
    auto silent = std::make_shared<CopyStream>();
    CopyCount late = copy_stream(
        *db, "COPY facade_stream (id, name) FROM STDIN", silent, [] {}, 200 * base::kNanosPerMilli);
    EXPECT_TRUE(late.status().is_timeout()) << late.status().to_string();
    EXPECT_EQ(run(*db, "SELECT count(*) FROM facade_stream")->text(0, 0), "200");
}

TEST(DatabasePostgres, CopyOutStreamHoldsTheServerBackAndStopsWhenClosed) {
    SLIPSTREAM_REQUIRE_CLUSTER(cluster);
    auto db = open("postgresql:" + cluster->conninfo(), DatabaseConfig{.url = "", .min_size = 1, .max_size = 2});
    ASSERT_TRUE(db);
    const std::string sql = "COPY (SELECT i, repeat('x', 50) FROM generate_series(1, 300000) AS i) TO STDOUT";
    auto stream = std::make_shared<CopyOutStream>(64 * 1024);
    auto p = std::make_shared<std::promise<CopyCount>>();
    auto f = p->get_future();
    db->copy_out_stream(sql, stream, [p](CopyCount r) { p->set_value(std::move(r)); });
    // Nobody takes: the buffer fills, the connection stops reading and the server waits to write.
    EXPECT_TRUE(eventually([&] {
        QueryResult r = run(*db, "SELECT count(*) FROM pg_stat_activity WHERE wait_event = 'ClientWrite'");
        return r.is_ok() && r->text(0, 0) == "1";
    }));
    EXPECT_LT(stream->buffered(), 64u * 1024 + 1024);  // the limit and one message at most
    std::size_t rows = 0;
    std::string chunk;
    while (f.wait_for(0s) != std::future_status::ready || !stream->finished()) {
        if (stream->take(chunk, 1 << 20)) {
            rows += static_cast<std::size_t>(std::count(chunk.begin(), chunk.end(), '\n'));
        } else {
            std::this_thread::yield();
        }
    }
    CopyCount n = f.get();
    ASSERT_TRUE(n.is_ok()) << n.status().to_string();
    EXPECT_EQ(n.value(), 300000u);
    EXPECT_EQ(rows, 300000u);

    // A consumer that gives up: close() and cancel; the statement ends and the connection serves the next one.
    auto dropped = std::make_shared<CopyOutStream>(64 * 1024);
    auto p2 = std::make_shared<std::promise<CopyCount>>();
    auto f2 = p2->get_future();
    std::shared_ptr<QueryCancel> handle =
        db->copy_out_stream(sql, dropped, [p2](CopyCount r) { p2->set_value(std::move(r)); });
    EXPECT_TRUE(eventually([&] { return dropped->buffered() > 0; }));
    dropped->close();
    handle->cancel();
    ASSERT_EQ(f2.wait_for(30s), std::future_status::ready);
    EXPECT_EQ(f2.get().status().code(), base::StatusCode::kCancelled);
    EXPECT_TRUE(eventually([&] {
        QueryResult r = run(*db,
                            "SELECT count(*) FROM pg_stat_activity WHERE query LIKE 'COPY (SELECT i%' AND "
                            "state = 'active'");
        return r.is_ok() && r->text(0, 0) == "0";
    }));
    EXPECT_EQ(run(*db, "SELECT 41 + 1")->text(0, 0), "42");
}

TEST(DatabaseSqlite, CopyIsRefused) {
    auto db = open("sqlite://:memory:");
    ASSERT_TRUE(db);
    CopyCount r = copy(*db, "COPY t FROM STDIN", {});
    EXPECT_EQ(r.status().code(), base::StatusCode::kInvalidArgument);
}

TEST(DatabasePostgres, TypedErrorsReachTheCaller) {
    SLIPSTREAM_REQUIRE_CLUSTER(cluster);
    auto db = open("postgresql:" + cluster->conninfo());
    ASSERT_TRUE(db);
    QueryResult r = run(*db, "SELECT 1/0");
    ASSERT_FALSE(r.is_ok());
    EXPECT_EQ(r.error().sqlstate, "22012");
    EXPECT_TRUE(db->ready());  // an error in a statement says nothing about reachability
}

TEST(DatabasePostgres, UnreachableServerIsNotReadyAndQueriesFailInTime) {
    // Nothing listens on this socket folder: every connection attempt fails at once.
    auto db = open("postgresql:host=/nonexistent-ss-socket-dir port=1 connect_timeout=1",
                   DatabaseConfig{.url = "", .min_size = 0, .acquire_timeout_ns = 500'000'000});
    ASSERT_TRUE(db);
    QueryResult r = run(*db, "SELECT 1");
    EXPECT_FALSE(r.is_ok());
    EXPECT_FALSE(db->ready());
}

TEST(DatabasePostgres, AnIdleDatabaseNoticesAnOutageAndTheRecovery) {
    SLIPSTREAM_REQUIRE_CLUSTER(shared);  // skips without PostgreSQL; this test stops a cluster of its own
    TestCluster cluster;
    ASSERT_TRUE(cluster.start().is_ok());
    auto db = open("postgresql:" + cluster.conninfo(),
                   DatabaseConfig{.url = "", .acquire_timeout_ns = 500'000'000, .connect_timeout_ns = 500'000'000});
    ASSERT_TRUE(db);
    ASSERT_TRUE(eventually([&] { return db->ready(); }));
    ASSERT_TRUE(cluster.stop().is_ok());  // no statement from us: only the probe can tell
    EXPECT_TRUE(eventually([&] { return !db->ready(); }));
    ASSERT_TRUE(cluster.restart().is_ok());
    EXPECT_TRUE(eventually([&] { return db->ready(); }));
    EXPECT_TRUE(run(*db, "SELECT 1").is_ok());
}

TEST(DatabasePostgres, ASessionOutlivingItsDatabaseIsRefused) {
    SLIPSTREAM_REQUIRE_CLUSTER(cluster);
    auto db = open("postgresql:" + cluster->conninfo());
    ASSERT_TRUE(db);
    auto s = session(*db);
    ASSERT_TRUE(s);
    db.reset();
    auto p = std::make_shared<std::promise<QueryResult>>();
    s->query("SELECT 1", {}, [p](QueryResult r) { p->set_value(std::move(r)); });
    QueryResult r = p->get_future().get();
    EXPECT_EQ(r.status().code(), base::StatusCode::kCancelled);
}

}  // namespace
}  // namespace slipstream::store
