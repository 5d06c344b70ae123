// Database (SQLite on workers): PRAGMAs, answers on the caller's loop, transactions, parallel writers, back-pressure.
#include "store/sqlite/database.h"

#include <gtest/gtest.h>

#include <atomic>
#include <future>
#include <optional>

#include "base/clock.h"
#include "store/sqlite/sqlite_test_support.h"
#include "store/sqlite/wal_checkpointer.h"

namespace slipstream::store::sqlite {
namespace {

bool run_until(net::EventLoop& loop, const std::function<bool()>& done) {
    const base::MonoNanos deadline = base::mono_now() + 30 * base::kNanosPerSecond;  // a bound, not a wait
    while (!done()) {
        if (base::mono_now() > deadline) return false;
        loop.run_once(50);
    }
    return true;
}

class DatabaseTest : public ::testing::Test {
  protected:
    void SetUp() override {
        loop_.attach_to_current_thread();
        DatabaseOptions o;
        o.path = dir_.file("app.db");
        auto db = Database::open(o);
        ASSERT_TRUE(db.is_ok()) << db.status().to_string();
        db_ = std::move(db.value());
        ASSERT_TRUE(script("CREATE TABLE kv (k TEXT PRIMARY KEY, v INTEGER)").is_ok());
    }

    QueryResult query(std::string sql, Params params = {}) {
        std::optional<QueryResult> r;
        db_->query(loop_, std::move(sql), std::move(params), [&](QueryResult q) { r.emplace(std::move(q)); });
        if (!run_until(loop_, [&] { return r.has_value(); })) return QueryResult(base::Status::internal("hung"));
        return std::move(*r);
    }

    base::Status script(std::string sql) {
        std::optional<base::Status> s;
        db_->execute_script(loop_, std::move(sql), [&](base::Status st) { s = st; });
        if (!run_until(loop_, [&] { return s.has_value(); })) return base::Status::internal("hung");
        return *s;
    }

    testing::TempDir dir_;
    base::SystemClock clock_;
    net::EventLoop loop_{clock_};
    std::unique_ptr<Database> db_;
};

TEST_F(DatabaseTest, DurableDefaults) {
    QueryResult mode = query("PRAGMA journal_mode");
    ASSERT_TRUE(mode.is_ok());
    EXPECT_EQ(mode->value(0, 0), Value(std::string("wal")));
    QueryResult sync = query("PRAGMA synchronous");
    ASSERT_TRUE(sync.is_ok());
    EXPECT_EQ(sync->value(0, 0), Value(std::int64_t{2}));  // FULL
    QueryResult busy = query("PRAGMA busy_timeout");
    ASSERT_TRUE(busy.is_ok());
    EXPECT_EQ(busy->value(0, 0), Value(std::int64_t{5000}));
    QueryResult fk = query("PRAGMA foreign_keys");
    ASSERT_TRUE(fk.is_ok());
    EXPECT_EQ(fk->value(0, 0), Value(std::int64_t{1}));
}

TEST_F(DatabaseTest, AnswersOnTheCallersLoopThread) {
    std::optional<bool> on_loop;
    std::optional<std::string> json;
    db_->query(loop_, "INSERT INTO kv VALUES (?, ?)", {std::string("a"), std::int64_t{1}},
               [&](QueryResult r) { on_loop = r.is_ok() && loop_.is_in_loop_thread(); });
    ASSERT_TRUE(run_until(loop_, [&] { return on_loop.has_value(); }));
    EXPECT_TRUE(*on_loop);
    db_->fetch_json(loop_, "SELECT * FROM kv", {}, [&](JsonResult r) { json = r.is_ok() ? r.value() : "error"; });
    ASSERT_TRUE(run_until(loop_, [&] { return json.has_value(); }));
    EXPECT_EQ(*json, "[{\"k\":\"a\",\"v\":1}]");
}

TEST_F(DatabaseTest, FailedTransactionRollsBack) {
    std::optional<base::Status> outcome;
    db_->transaction(
        loop_,
        [](Session& s) -> base::Status {
            QueryResult a = s.query("INSERT INTO kv VALUES ('x', 1)", {});
            if (!a.is_ok()) return a.status();
            QueryResult b = s.query("INSERT INTO kv VALUES ('x', 2)", {});  // duplicate key
            return b.status();
        },
        [&](base::Status s) { outcome = s; });
    ASSERT_TRUE(run_until(loop_, [&] { return outcome.has_value(); }));
    EXPECT_TRUE(outcome->is_already_exists()) << outcome->to_string();
    QueryResult count = query("SELECT count(*) FROM kv");
    ASSERT_TRUE(count.is_ok());
    EXPECT_EQ(count->value(0, 0), Value(std::int64_t{0}));

    outcome.reset();
    db_->transaction(
        loop_, [](Session& s) { return s.query("INSERT INTO kv VALUES ('y', 1)", {}).status(); },
        [&](base::Status s) { outcome = s; });
    ASSERT_TRUE(run_until(loop_, [&] { return outcome.has_value(); }));
    EXPECT_TRUE(outcome->is_ok());
    QueryResult after = query("SELECT v FROM kv WHERE k = 'y'");
    ASSERT_TRUE(after.is_ok());
    EXPECT_EQ(after->value(0, 0), Value(std::int64_t{1}));
}

// A second database in the test's folder with background checkpoints past `pages` (0: SQLite's own).
std::unique_ptr<Database> open_with_checkpoints(const testing::TempDir& dir, std::size_t pages) {
    DatabaseOptions o;
    o.path = dir.file("ckpt-" + std::to_string(pages) + ".db");
    o.checkpoint_pages = pages;
    auto opened = Database::open(o);
    EXPECT_TRUE(opened.is_ok()) << opened.status().to_string();
    return opened.is_ok() ? std::move(opened.value()) : nullptr;
}

TEST_F(DatabaseTest, WalIsCheckpointedInTheBackgroundAndStaysBounded) {
    std::unique_ptr<Database> db = open_with_checkpoints(dir_, 8);
    ASSERT_NE(db, nullptr);
    ASSERT_NE(db->options().checkpointer, nullptr);
    std::optional<base::Status> made;
    db->execute_script(loop_, "CREATE TABLE blobs (id INTEGER PRIMARY KEY, b BLOB)", [&](base::Status s) { made = s; });
    ASSERT_TRUE(run_until(loop_, [&] { return made.has_value(); }));
    ASSERT_TRUE(made->is_ok());
    // 400 commits of 8 KiB each (two or three pages): past 8 pages the hook signals, past 64 the committing
    // connection checkpoints itself; either way the log never holds the 800+ pages written.
    for (std::int64_t i = 0; i < 400; ++i) {
        std::optional<QueryResult> r;
        db->query(loop_, "INSERT INTO blobs (b) VALUES (zeroblob(8192))", {},
                  [&](QueryResult q) { r.emplace(std::move(q)); });
        ASSERT_TRUE(run_until(loop_, [&] { return r.has_value(); }));
        ASSERT_TRUE(r->is_ok()) << r->status().to_string();
    }
    // Signalled: the thread checkpoints (at a lower priority, so possibly after the last commit).
    EXPECT_TRUE(run_until(loop_, [&] { return db->options().checkpointer->checkpoints() > 0; }));
    std::optional<QueryResult> wal;
    db->query(loop_, "PRAGMA wal_checkpoint(PASSIVE)", {}, [&](QueryResult q) { wal.emplace(std::move(q)); });
    ASSERT_TRUE(run_until(loop_, [&] { return wal.has_value(); }));
    ASSERT_TRUE(wal->is_ok());
    const std::int64_t log_pages = std::get<std::int64_t>((*wal)->value(0, 1));
    EXPECT_LT(log_pages, static_cast<std::int64_t>(8 * WalCheckpointer::kInlineFactor + 8));
}

TEST_F(DatabaseTest, NoBackgroundCheckpointsWhenTurnedOff) {
    std::unique_ptr<Database> db = open_with_checkpoints(dir_, 0);
    ASSERT_NE(db, nullptr);
    EXPECT_EQ(db->options().checkpointer, nullptr);
}

TEST_F(DatabaseTest, ParallelWritersAllCommit) {
    int ok = 0;
    int failed = 0;
    for (std::int64_t i = 0; i < 200; ++i) {
        db_->query(loop_, "INSERT INTO kv VALUES (?, ?)", {std::to_string(i), i},
                   [&](QueryResult r) { r.is_ok() ? ++ok : ++failed; });
    }
    ASSERT_TRUE(run_until(loop_, [&] { return ok + failed == 200; }));
    EXPECT_EQ(ok, 200);
    QueryResult sum = query("SELECT count(*), sum(v) FROM kv");
    ASSERT_TRUE(sum.is_ok());
    EXPECT_EQ(sum->value(0, 0), Value(std::int64_t{200}));
    EXPECT_EQ(sum->value(0, 1), Value(std::int64_t{19900}));
}

TEST_F(DatabaseTest, FullQueueAnswersResourceExhausted) {
    DatabaseOptions o;
    o.path = dir_.file("small.db");
    o.threads = 1;
    o.max_queue = 1;
    auto small = Database::open(o);
    ASSERT_TRUE(small.is_ok());
    std::promise<void> release;
    std::shared_future<void> gate = release.get_future().share();
    std::promise<void> started;
    std::optional<base::Status> first;
    (*small)->transaction(
        loop_,
        [&, gate](Session&) {
            started.set_value();
            gate.wait();  // holds the only worker so the queue fills
            return base::Status::ok();
        },
        [&](base::Status s) { first = s; });
    started.get_future().wait();
    std::optional<QueryResult> queued;
    std::optional<QueryResult> refused;
    (*small)->query(loop_, "SELECT 1", {}, [&](QueryResult r) { queued.emplace(std::move(r)); });
    (*small)->query(loop_, "SELECT 2", {}, [&](QueryResult r) { refused.emplace(std::move(r)); });
    ASSERT_TRUE(run_until(loop_, [&] { return refused.has_value(); }));
    EXPECT_TRUE(refused->status().is_resource_exhausted());
    EXPECT_EQ(refused->status().message(), "store worker queue is full (1 jobs)");
    release.set_value();
    ASSERT_TRUE(run_until(loop_, [&] { return first.has_value() && queued.has_value(); }));
    EXPECT_TRUE(first->is_ok());
    EXPECT_TRUE(queued->is_ok());
}

TEST_F(DatabaseTest, InterruptStopsARunningStatementAndDropsAQueuedOne) {
    // Counts to 10^12: minutes unless interrupted. Two workers: the first runs it, the second the statement after.
    const std::string endless =
        "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 1000000000000) SELECT count(*) FROM "
        "c";
    auto running = std::make_shared<Interrupt>();
    std::optional<QueryResult> slow;
    db_->query(
        loop_, endless, {}, [&](QueryResult r) { slow.emplace(std::move(r)); }, running);
    ASSERT_TRUE(run_until(loop_, [&] { return running->running(); }));
    running->cancel();
    ASSERT_TRUE(run_until(loop_, [&] { return slow.has_value(); }));
    EXPECT_TRUE(slow->status().is_cancelled()) << slow->status().to_string();
    EXPECT_EQ(slow->error().native_code, 9);  // SQLITE_INTERRUPT
    EXPECT_FALSE(running->running());

    auto early = std::make_shared<Interrupt>();
    early->cancel();  // before a worker took it: it never runs
    std::optional<JsonResult> dropped;
    db_->fetch_json(
        loop_, endless, {}, [&](JsonResult r) { dropped.emplace(std::move(r)); }, early);
    ASSERT_TRUE(run_until(loop_, [&] { return dropped.has_value(); }));
    EXPECT_TRUE(dropped->status().is_cancelled());
    EXPECT_EQ(dropped->status().message(), "statement cancelled by the client before it started");
    // The interrupted connection runs the next statements normally.
    for (int i = 0; i < 4; ++i) {
        QueryResult after = query("SELECT 7");
        ASSERT_TRUE(after.is_ok()) << after.status().to_string();
        EXPECT_EQ(after->value(0, 0), Value(std::int64_t{7}));
    }
}

TEST_F(DatabaseTest, OpenFailureIsAStatus) {
    DatabaseOptions o;
    o.path = dir_.file("missing-dir/x.db");
    auto db = Database::open(o);
    ASSERT_FALSE(db.is_ok());
    EXPECT_TRUE(db.status().is_io_error()) << db.status().to_string();
    EXPECT_EQ(db.status().message(), "cannot open " + o.path + ": unable to open database file");
}

}  // namespace
}  // namespace slipstream::store::sqlite
