// DatabaseBucketStore on the throwaway PostgreSQL cluster: a key's requests in one batch, the bucket's exact state,
// two handles (two processes) on one bucket, a rate change (another den), SQLite's refusal.
#include "agent/shared_state/bucket_store.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <future>

#include "store/postgres/pg_test_support.h"

namespace slipstream::agent::shared_state {
namespace {

using store::postgres::TestCluster;
using namespace std::chrono_literals;

constexpr std::uint64_t kHour = 3'600'000'000'000;  // ns

std::vector<RateLimitOutcome> decide(RateLimitStore& store, std::vector<RateLimitCheck> checks) {
    auto p = std::make_shared<std::promise<std::vector<RateLimitOutcome>>>();
    auto f = p->get_future();
    store.check(std::move(checks), [p](bool ok, std::vector<RateLimitOutcome> out) {
        EXPECT_TRUE(ok);
        p->set_value(std::move(out));
    });
    EXPECT_EQ(f.wait_for(30s), std::future_status::ready);
    return f.get();
}

// `count` requests of `key` at 10 an hour (one every 6 minutes), burst 3.
RateLimitCheck hourly(std::string key, std::uint32_t count) {
    return RateLimitCheck{std::move(key), kHour / 10, 1, 3, count};
}

std::shared_ptr<store::Database> open_db(const std::string& url) {
    auto db = store::Database::open({.url = url});
    EXPECT_TRUE(db.is_ok());
    return std::shared_ptr<store::Database>(std::move(*db));
}

std::string fresh_database(TestCluster& cluster) {
    static int counter = 0;
    auto admin = open_db("postgresql:" + cluster.conninfo());
    const std::string name = "buckets_" + std::to_string(::getpid()) + "_" + std::to_string(counter++);
    std::promise<bool> created;
    admin->query("CREATE DATABASE " + name, {}, [&](store::QueryResult r) { created.set_value(r.is_ok()); });
    EXPECT_TRUE(created.get_future().get());
    std::string conninfo = cluster.conninfo();
    conninfo.replace(conninfo.find("dbname=postgres"), 15, "dbname=" + name);
    return "postgresql:" + conninfo;
}

TEST(DatabaseBucketStore, CountsAKeysRequestsTogetherExactly) {
    SLIPSTREAM_REQUIRE_CLUSTER(cluster);
    const std::string url = fresh_database(*cluster);
    auto store = DatabaseBucketStore::open(open_db(url), 5'000'000'000);
    ASSERT_TRUE(store.is_ok()) << store.status().message();
    // A fresh key with 5 requests in one batch: the burst (3) allowed, the TAT 3 intervals ahead (18 min).
    std::vector<RateLimitOutcome> out = decide(**store, {hourly("p:a", 5), hourly("p:b", 1)});
    ASSERT_EQ(out.size(), 2u);
    EXPECT_EQ(out[0].allowed, 3u);
    EXPECT_GT(out[0].tat_ahead_ns, static_cast<std::int64_t>(3 * kHour / 10) - 60'000'000'000);
    EXPECT_LE(out[0].tat_ahead_ns, static_cast<std::int64_t>(3 * kHour / 10));
    EXPECT_EQ(out[1].allowed, 1u);
    // Another handle on the same table (another process): p:a is full, p:b has two left.
    auto other = DatabaseBucketStore::open(open_db(url), 5'000'000'000);
    ASSERT_TRUE(other.is_ok());
    out = decide(**other, {hourly("p:a", 1), hourly("p:b", 4)});
    EXPECT_EQ(out[0].allowed, 0u);
    EXPECT_EQ(out[1].allowed, 2u);
    out = decide(**store, {hourly("p:b", 1)});
    EXPECT_EQ(out[0].allowed, 0u);
    // The same rate written with another denominator (7 an hour is not a whole number of ns apart): the kept TAT
    // is converted and p:a stays full.
    out = decide(**store, {RateLimitCheck{"p:a", kHour, 7, 3, 1}});
    EXPECT_EQ(out[0].allowed, 0u);
}

TEST(DatabaseBucketStore, SqliteIsRefused) {
    auto db = open_db("sqlite://:memory:");
    auto store = DatabaseBucketStore::open(db, 1'000'000'000);
    ASSERT_FALSE(store.is_ok());
    EXPECT_NE(store.status().message().find("postgresql"), std::string::npos);
}

}  // namespace
}  // namespace slipstream::agent::shared_state
