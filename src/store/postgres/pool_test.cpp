// Pool against a real PostgreSQL server: exhaustion times out, leases roll back, a restarted server is survived.
#include "store/postgres/pool.h"

#include <gtest/gtest.h>

#include <optional>

#include "store/postgres/pg_test_support.h"

namespace slipstream::store::postgres {
namespace {

using testing::run_until;

class PoolTest : public ::testing::Test {
  protected:
    void SetUp() override {
        SLIPSTREAM_REQUIRE_CLUSTER(cluster);
        cluster_ = cluster;
    }

    PoolOptions options(std::size_t min, std::size_t max) {
        PoolOptions o;
        o.conninfo = cluster_->conninfo();
        o.min_size = min;
        o.max_size = max;
        o.acquire_timeout_ns = 150 * base::kNanosPerMilli;
        return o;
    }

    QueryResult run(Pool& pool, std::string sql, Params params = {}, QueryOptions opts = {}) {
        std::optional<QueryResult> result;
        pool.query(
            std::move(sql), std::move(params), [&](QueryResult r) { result.emplace(std::move(r)); }, opts);
        if (!run_until(loop_, [&] { return result.has_value(); })) return QueryResult(base::Status::internal("hung"));
        return std::move(*result);
    }

    base::Result<Lease> acquire(Pool& pool) {
        std::optional<base::Result<Lease>> got;
        pool.acquire([&](base::Result<Lease> l) { got.emplace(std::move(l)); });
        if (!run_until(loop_, [&] { return got.has_value(); })) return base::Status::internal("hung");
        return std::move(*got);
    }

    TestCluster* cluster_ = nullptr;
    base::SystemClock clock_;
    net::EventLoop loop_{clock_};
    WorkerPool cancel_{{.threads = 1, .max_queue = 16, .name = "ss-pg-cancel"}};
};

TEST_F(PoolTest, OpensMinSizeAndServesQueries) {
    Pool pool(loop_, options(2, 4), &cancel_);
    ASSERT_TRUE(run_until(loop_, [&] { return pool.stats().idle == 2; }));
    EXPECT_EQ(pool.stats().open, 2u);
    int done = 0;
    int failed = 0;
    for (std::int64_t i = 0; i < 20; ++i) {
        pool.query("SELECT $1::int8 * 2", {i}, [&, i](QueryResult r) {
            if (r.is_ok() && r->value(0, 0) == Value(i * 2)) {
                ++done;
            } else {
                ++failed;
            }
        });
    }
    ASSERT_TRUE(run_until(loop_, [&] { return done + failed == 20; }));
    EXPECT_EQ(done, 20);
    EXPECT_LE(pool.stats().open, 4u);
    EXPECT_EQ(pool.stats().waiting, 0u);
}

TEST_F(PoolTest, ExhaustionAnswersWithTimeoutNotAHang) {
    Pool pool(loop_, options(1, 1), &cancel_);
    base::Result<Lease> held = acquire(pool);
    ASSERT_TRUE(held.is_ok()) << held.status().to_string();
    base::Result<Lease> second = acquire(pool);
    ASSERT_FALSE(second.is_ok());
    EXPECT_TRUE(second.status().is_timeout());
    EXPECT_EQ(second.status().message(), "no database connection became free within 150 ms");
    QueryResult q = run(pool, "SELECT 1");
    EXPECT_TRUE(q.status().is_timeout());
    EXPECT_EQ(pool.stats().waiting, 0u);
    held.value().reset();  // back to the pool: the next caller gets it at once
    QueryResult after = run(pool, "SELECT 1");
    ASSERT_TRUE(after.is_ok()) << after.status().to_string();
    EXPECT_EQ(pool.stats().open, 1u);
}

TEST_F(PoolTest, WaiterGetsAReleasedConnection) {
    Pool pool(loop_, options(1, 1), &cancel_);
    base::Result<Lease> held = acquire(pool);
    ASSERT_TRUE(held.is_ok());
    std::optional<QueryResult> result;
    pool.query("SELECT 7", {}, [&](QueryResult r) { result.emplace(std::move(r)); });
    loop_.run_once(0);
    EXPECT_EQ(pool.stats().waiting, 1u);
    held.value().reset();
    ASSERT_TRUE(run_until(loop_, [&] { return result.has_value(); }));
    ASSERT_TRUE(result->is_ok());
    EXPECT_EQ(result->value().value(0, 0), Value(std::int64_t{7}));
}

TEST_F(PoolTest, LeaseLeftInTransactionIsRolledBack) {
    Pool pool(loop_, options(1, 1), &cancel_);
    ASSERT_TRUE(run(pool, "DROP TABLE IF EXISTS pool_tx").is_ok());
    ASSERT_TRUE(run(pool, "CREATE TABLE pool_tx (id int)").is_ok());
    {
        base::Result<Lease> lease = acquire(pool);
        ASSERT_TRUE(lease.is_ok());
        Connection& c = *lease.value();
        std::optional<QueryResult> r;
        c.begin([&](QueryResult) {});
        c.query("INSERT INTO pool_tx VALUES (1)", {}, [&](QueryResult q) { r.emplace(std::move(q)); });
        ASSERT_TRUE(run_until(loop_, [&] { return r.has_value(); }));
        ASSERT_TRUE(r->is_ok());
        EXPECT_TRUE(c.in_transaction());
    }  // released inside the transaction: the pool rolls it back before anyone else gets the connection
    QueryResult count = run(pool, "SELECT count(*) FROM pool_tx");
    ASSERT_TRUE(count.is_ok()) << count.status().to_string();
    EXPECT_EQ(count->value(0, 0), Value(std::int64_t{0}));
    ASSERT_TRUE(run(pool, "DROP TABLE pool_tx").is_ok());
}

TEST_F(PoolTest, ConnectFailureAnswersAtOnce) {
    PoolOptions o = options(0, 2);
    o.conninfo = "host=/nonexistent-ss-dir port=5432 user=x dbname=x";
    o.acquire_timeout_ns = 30 * base::kNanosPerSecond;  // the answer must not wait for this
    Pool pool(loop_, o, &cancel_);
    QueryResult r = run(pool, "SELECT 1");
    EXPECT_TRUE(r.status().is_unavailable()) << r.status().to_string();
    EXPECT_EQ(r.status().message().rfind("cannot connect to the database: ", 0), 0u) << r.status().message();
    EXPECT_EQ(pool.stats().open, 0u);
}

TEST_F(PoolTest, ServerRestartIsSurvived) {
    Pool pool(loop_, options(3, 3), &cancel_);
    ASSERT_TRUE(run_until(loop_, [&] { return pool.stats().idle == 3; }));
    std::vector<int> pids_before;
    for (int i = 0; i < 3; ++i) {
        QueryResult r = run(pool, "SELECT pg_backend_pid()");
        ASSERT_TRUE(r.is_ok());
    }
    // A lease held across the restart sees its connection lost, typed as such.
    base::Result<Lease> held = acquire(pool);
    ASSERT_TRUE(held.is_ok());
    ASSERT_TRUE(cluster_->restart().is_ok());
    std::optional<QueryResult> lost;
    held.value()->query("SELECT 1", {}, [&](QueryResult r) { lost.emplace(std::move(r)); });
    ASSERT_TRUE(run_until(loop_, [&] { return lost.has_value(); }));
    EXPECT_TRUE(lost->status().is_unavailable()) << lost->status().to_string();
    EXPECT_TRUE(lost->error().connection_lost);
    held.value().reset();

    // Every later query succeeds: stale idle connections are found by the checkout health check and replaced.
    int ok = 0;
    int failed = 0;
    std::string failure;
    for (int i = 0; i < 9; ++i) {
        pool.query("SELECT 1", {}, [&](QueryResult r) {
            if (r.is_ok()) {
                ++ok;
            } else {
                ++failed;
                failure = r.status().to_string();
            }
        });
    }
    ASSERT_TRUE(run_until(loop_, [&] { return ok + failed == 9; }));
    EXPECT_EQ(ok, 9) << failure;
    EXPECT_EQ(pool.stats().dropped, 3u);
    EXPECT_EQ(pool.stats().open, 3u);
}

TEST_F(PoolTest, CancelWhileWaitingForAConnectionEndsTheWait) {
    PoolOptions o = options(1, 1);
    o.acquire_timeout_ns = 10 * base::kNanosPerSecond;
    Pool pool(loop_, o, &cancel_);
    base::Result<Lease> held = acquire(pool);
    ASSERT_TRUE(held.is_ok()) << held.status().to_string();
    std::optional<QueryResult> waiting;
    std::shared_ptr<StatementCancel> handle =
        pool.query("SELECT 1", {}, [&](QueryResult r) { waiting.emplace(std::move(r)); });
    EXPECT_EQ(pool.stats().waiting, 1u);
    handle->cancel();
    ASSERT_TRUE(waiting.has_value());
    EXPECT_TRUE(waiting->status().is_cancelled());
    EXPECT_EQ(waiting->status().message(), "statement cancelled by the client while waiting for a database connection");
    EXPECT_EQ(pool.stats().waiting, 0u);
    EXPECT_TRUE(handle->requested());
    held.value().reset();
    QueryResult next = run(pool, "SELECT 2");
    ASSERT_TRUE(next.is_ok()) << next.status().to_string();
    EXPECT_EQ(next->value(0, 0), Value(std::int64_t{2}));
    handle->cancel();  // answered long ago: nothing happens
}

TEST_F(PoolTest, CancelStopsTheStatementOnTheServerAndTheConnectionServesTheNext) {
    PoolOptions o = options(1, 1);
    o.acquire_timeout_ns = 10 * base::kNanosPerSecond;
    Pool pool(loop_, o, &cancel_);
    Pool observer(loop_, options(1, 1), &cancel_);
    QueryResult who = run(pool, "SELECT pg_backend_pid()");
    ASSERT_TRUE(who.is_ok()) << who.status().to_string();
    const Value pid = who->value(0, 0);
    auto activity = [&] {
        QueryResult r = run(observer, "SELECT state || ': ' || query FROM pg_stat_activity WHERE pid = $1", {pid});
        return r.is_ok() && r->row_count() == 1 ? std::string(r->text(0, 0)) : std::string("?");
    };
    std::optional<JsonResult> slow;
    std::shared_ptr<StatementCancel> handle =
        pool.fetch_json("SELECT pg_sleep(30)", {}, [&](JsonResult r) { slow.emplace(std::move(r)); });
    ASSERT_TRUE(run_until(loop_, [&] { return activity() == "active: SELECT pg_sleep(30)"; }));
    handle->cancel();
    ASSERT_TRUE(slow.has_value());
    EXPECT_TRUE(slow->status().is_cancelled());
    EXPECT_EQ(slow->status().message(), "statement cancelled by the client");
    // The pool's one connection serves the next statement once the server has stopped the sleep (the bound is
    // 10 s, the sleep 30 s), on the same backend.
    std::optional<QueryResult> next;
    pool.query("SELECT 'next'", {}, [&](QueryResult r) { next.emplace(std::move(r)); });
    ASSERT_TRUE(run_until(
        loop_, [&] { return next.has_value(); }, 10 * base::kNanosPerSecond));
    ASSERT_TRUE(next->is_ok()) << next->status().to_string();
    EXPECT_EQ(next->value().text(0, 0), "next");
    EXPECT_EQ(activity(), "idle: SELECT 'next'");
    EXPECT_EQ(pool.stats().dropped, 0u);
    EXPECT_EQ(pool.stats().open, 1u);
}

TEST_F(PoolTest, IdleConnectionsBeyondMinAreClosed) {
    PoolOptions o = options(1, 3);
    o.idle_timeout_ns = 50 * base::kNanosPerMilli;
    Pool pool(loop_, o, &cancel_);
    std::vector<base::Result<Lease>> held;
    for (int i = 0; i < 3; ++i)
        held.push_back(acquire(pool));
    for (auto& l : held)
        ASSERT_TRUE(l.is_ok()) << l.status().to_string();
    EXPECT_EQ(pool.stats().open, 3u);
    held.clear();  // all three idle now
    ASSERT_TRUE(run_until(loop_, [&] { return pool.stats().open == 1; }));
    EXPECT_EQ(pool.stats().retired, 2u);
    EXPECT_EQ(pool.stats().dropped, 0u);
    EXPECT_TRUE(run(pool, "SELECT 1").is_ok());
}

TEST_F(PoolTest, ConnectionsPastTheirLifetimeAreReplaced) {
    PoolOptions o = options(1, 1);
    o.max_lifetime_ns = 50 * base::kNanosPerMilli;
    Pool pool(loop_, o, &cancel_);
    QueryResult first = run(pool, "SELECT pg_backend_pid()");
    ASSERT_TRUE(first.is_ok());
    Value pid = first->value(0, 0);
    ASSERT_TRUE(run_until(loop_, [&] { return pool.stats().retired >= 1 && pool.stats().idle == 1; }));
    QueryResult later = run(pool, "SELECT pg_backend_pid()");
    ASSERT_TRUE(later.is_ok());
    EXPECT_NE(later->value(0, 0), pid);  // a new backend: the old connection was closed, min_size kept
    EXPECT_EQ(pool.stats().dropped, 0u);
}

// A pool statement waits on an advisory lock the test holds; its backend is terminated meanwhile. Idempotent
// work runs again on a new connection; other work reports the lost connection with the server's SQLSTATE.
class PoolRetryTest : public PoolTest {
  protected:
    std::unique_ptr<Connection> direct() {
        std::optional<base::Status> status;
        auto c = Connection::connect(loop_, cluster_->conninfo(), {}, [&](Connection&, base::Status s) { status = s; });
        if (!run_until(loop_, [&] { return status.has_value(); }) || !status->is_ok()) return nullptr;
        return c;
    }
    QueryResult on(Connection& c, std::string sql) {
        std::optional<QueryResult> r;
        c.query(std::move(sql), {}, [&](QueryResult q) { r.emplace(std::move(q)); });
        if (!run_until(loop_, [&] { return r.has_value(); })) return QueryResult(base::Status::internal("hung"));
        return std::move(*r);
    }
    // The pid of a backend waiting for the advisory lock other than `except`, polled (bounded) until one waits.
    std::int64_t waiting_pid(Connection& c, std::int64_t except) {
        std::int64_t pid = 0;
        run_until(loop_, [&] {
            QueryResult r = on(c, "SELECT pid FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND pid <> " +
                                      std::to_string(except) + " AND query LIKE 'SELECT pg_advisory_xact_lock(77)%'");
            if (r.is_ok() && r->row_count() == 1) pid = std::get<std::int64_t>(r->value(0, 0));
            return pid != 0;
        });
        return pid;
    }
};

TEST_F(PoolRetryTest, LostConnectionRetriesOnlyIdempotentWork) {
    for (bool idempotent : {true, false}) {
        Pool pool(loop_, options(1, 2), &cancel_);
        std::unique_ptr<Connection> holder = direct();
        ASSERT_NE(holder, nullptr);
        ASSERT_TRUE(on(*holder, "SELECT pg_advisory_lock(77)").is_ok());
        std::optional<QueryResult> result;
        pool.query("SELECT pg_advisory_xact_lock(77), 'ran'", {}, [&](QueryResult r) { result.emplace(std::move(r)); },
                   {.idempotent = idempotent});
        std::int64_t first = waiting_pid(*holder, 0);
        ASSERT_NE(first, 0);
        ASSERT_TRUE(on(*holder, "SELECT pg_terminate_backend(" + std::to_string(first) + ")").is_ok());
        if (idempotent) {
            std::int64_t second = waiting_pid(*holder, first);  // the retry, on a new backend
            EXPECT_NE(second, 0);
        }
        ASSERT_TRUE(on(*holder, "SELECT pg_advisory_unlock(77)").is_ok());
        ASSERT_TRUE(run_until(loop_, [&] { return result.has_value(); }));
        if (idempotent) {
            ASSERT_TRUE(result->is_ok()) << result->status().to_string();
            EXPECT_EQ(result->value().value(0, 1), Value(std::string("ran")));
        } else {
            EXPECT_TRUE(result->status().is_unavailable()) << result->status().to_string();
            EXPECT_TRUE(result->error().connection_lost);
            EXPECT_EQ(result->error().sqlstate, "57P01");
            EXPECT_EQ(result->error().message, "terminating connection due to administrator command");
        }
        EXPECT_EQ(pool.stats().dropped, 1u);
    }
}

}  // namespace
}  // namespace slipstream::store::postgres
