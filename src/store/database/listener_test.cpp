// DbListener: NOTIFYs on quoted channels, a backend terminated and a server restarted under it (lost, reconnected,
// LISTENing again), UNLISTEN, the session cap, close, and SQLite's refusal.
#include "store/database/db_listener.h"

#include <gtest/gtest.h>

#include <condition_variable>
#include <deque>
#include <future>
#include <mutex>

#include "store/database/db_test_support.h"
#include "store/postgres/pg_test_support.h"

namespace slipstream::store {
namespace {

using postgres::TestCluster;
using namespace db_testing;
using namespace std::chrono_literals;

// What a listener heard, in order: "notify <channel> <payload>", "lost", "reconnected".
class Heard {
  public:
    ListenerHandlers handlers() {
        return ListenerHandlers{
            .on_notification = [this](const DbNotification& n) { add("notify " + n.channel + " " + n.payload); },
            .on_event =
                [this](ListenerEvent e, const base::Status&) {
                    add(e == ListenerEvent::kConnectionLost ? "lost" : "reconnected");
                }};
    }
    // The next thing heard, or "nothing" after 10 s.
    std::string next() {
        std::unique_lock<std::mutex> lock(mutex_);
        if (!cv_.wait_for(lock, 10s, [this] { return !items_.empty(); })) return "nothing";
        std::string item = std::move(items_.front());
        items_.pop_front();
        return item;
    }

  private:
    void add(std::string item) {
        std::lock_guard<std::mutex> lock(mutex_);
        items_.push_back(std::move(item));
        cv_.notify_all();
    }
    std::mutex mutex_;
    std::condition_variable cv_;
    std::deque<std::string> items_;
};

std::unique_ptr<DbListener> open_listener(Database& db, Heard& heard, base::Status* status = nullptr) {
    auto p = std::make_shared<std::promise<base::Result<std::unique_ptr<DbListener>>>>();
    auto f = p->get_future();
    db.open_listener(heard.handlers(),
                     [p](base::Result<std::unique_ptr<DbListener>> l) { p->set_value(std::move(l)); });
    EXPECT_EQ(f.wait_for(30s), std::future_status::ready);
    auto r = f.get();
    if (status != nullptr) *status = r.status();
    return r.is_ok() ? std::move(r).value() : nullptr;
}

base::Status wait(const std::function<void(DbListener::Done)>& call) {
    auto p = std::make_shared<std::promise<base::Status>>();
    auto f = p->get_future();
    call([p](base::Status s) { p->set_value(std::move(s)); });
    EXPECT_EQ(f.wait_for(30s), std::future_status::ready);
    return f.get();
}

base::Status listen(DbListener& l, const std::string& channel) {
    return wait([&](DbListener::Done done) { l.listen(channel, std::move(done)); });
}

void notify(Database& db, const std::string& channel, const std::string& payload) {
    QueryResult r = run(db, "SELECT pg_notify($1, $2)", {channel, payload});
    ASSERT_TRUE(r.is_ok()) << r.status().to_string();
}

// The backend whose last statement was `sql`.
Value backend_running(Database& db, const std::string& sql) {
    Value pid;
    eventually([&] {
        QueryResult r = run(db, "SELECT pid FROM pg_stat_activity WHERE query = $1", {sql});
        if (!r.is_ok() || r->row_count() != 1) return false;
        pid = r->value(0, 0);
        return true;
    });
    return pid;
}

TEST(DbListener, ATerminatedBackendIsReplacedAndListensAgain) {
    SLIPSTREAM_REQUIRE_CLUSTER(cluster);
    auto db = open("postgresql:" + cluster->conninfo());
    ASSERT_TRUE(db);
    Heard heard;
    auto listener = open_listener(*db, heard);
    ASSERT_TRUE(listener);
    EXPECT_TRUE(listener->connected());
    const std::string channel = "orders \"eu\"";  // quoted as an identifier
    ASSERT_TRUE(listen(*listener, channel).is_ok());
    notify(*db, channel, "one");
    EXPECT_EQ(heard.next(), "notify orders \"eu\" one");

    const Value first = backend_running(*db, "LISTEN \"orders \"\"eu\"\"\"");
    ASSERT_FALSE(std::holds_alternative<std::monostate>(first));
    ASSERT_TRUE(run(*db, "SELECT pg_terminate_backend($1::int)", {first}).is_ok());
    EXPECT_EQ(heard.next(), "lost");
    EXPECT_EQ(heard.next(), "reconnected");
    EXPECT_TRUE(listener->connected());
    notify(*db, channel, "two");
    EXPECT_EQ(heard.next(), "notify orders \"eu\" two");
    const Value second = backend_running(*db, "SELECT 1");  // the reconnect's last statement
    EXPECT_NE(std::get<std::int64_t>(second), std::get<std::int64_t>(first));

    // UNLISTEN: not heard any more (NOTIFYs arrive in commit order, so "b" comes after anything on the first).
    ASSERT_TRUE(wait([&](DbListener::Done done) { listener->unlisten(channel, std::move(done)); }).is_ok());
    ASSERT_TRUE(listen(*listener, "b").is_ok());
    notify(*db, channel, "three");
    notify(*db, "b", "four");
    EXPECT_EQ(heard.next(), "notify b four");

    listener->close();
    EXPECT_EQ(listen(*listener, "c").code(), base::StatusCode::kCancelled);
    EXPECT_FALSE(listener->connected());
    EXPECT_EQ(listen(*listener, std::string("a\0b", 3)).code(), base::StatusCode::kInvalidArgument);
}

TEST(DbListener, ARestartedServerIsReconnectedWithBackoff) {
    SLIPSTREAM_REQUIRE_CLUSTER(shared);  // skips without PostgreSQL; this test restarts a cluster of its own
    TestCluster cluster;
    ASSERT_TRUE(cluster.start().is_ok());
    auto db = open("postgresql:" + cluster.conninfo(),
                   DatabaseConfig{.url = "", .acquire_timeout_ns = 1'000'000'000, .connect_timeout_ns = 1'000'000'000});
    ASSERT_TRUE(db);
    Heard heard;
    auto listener = open_listener(*db, heard);
    ASSERT_TRUE(listener);
    ASSERT_TRUE(listen(*listener, "jobs").is_ok());
    ASSERT_TRUE(cluster.stop().is_ok());
    EXPECT_EQ(heard.next(), "lost");
    EXPECT_FALSE(listener->connected());
    ASSERT_TRUE(listen(*listener, "later").is_ok());  // kept: LISTENed once the server is back
    ASSERT_TRUE(cluster.restart().is_ok());
    EXPECT_EQ(heard.next(), "reconnected");  // once, after however many failed attempts
    notify(*db, "jobs", "1");
    notify(*db, "later", "2");
    EXPECT_EQ(heard.next(), "notify jobs 1");
    EXPECT_EQ(heard.next(), "notify later 2");
}

TEST(DbListener, CountsAsASessionAndSqliteRefuses) {
    SLIPSTREAM_REQUIRE_CLUSTER(cluster);
    auto db = open("postgresql:" + cluster->conninfo(), DatabaseConfig{.url = "", .max_sessions = 1});
    ASSERT_TRUE(db);
    Heard heard;
    auto first = open_listener(*db, heard);
    ASSERT_TRUE(first);
    base::Status status;
    EXPECT_EQ(open_listener(*db, heard, &status), nullptr);
    EXPECT_EQ(status.code(), base::StatusCode::kResourceExhausted);
    first.reset();
    EXPECT_TRUE(eventually([&] { return open_listener(*db, heard) != nullptr; }));

    auto lite = open("sqlite://:memory:");
    ASSERT_TRUE(lite);
    EXPECT_EQ(open_listener(*lite, heard, &status), nullptr);
    EXPECT_EQ(status.code(), base::StatusCode::kInvalidArgument);
}

TEST(DbListener, AnUnreachableServerFailsTheOpen) {
    auto db = open("postgresql:host=/nonexistent-ss-socket-dir port=1",
                   DatabaseConfig{.url = "", .min_size = 0, .connect_timeout_ns = 500'000'000});
    ASSERT_TRUE(db);
    Heard heard;
    base::Status status;
    EXPECT_EQ(open_listener(*db, heard, &status), nullptr);
    EXPECT_EQ(status.code(), base::StatusCode::kUnavailable) << status.to_string();
}

}  // namespace
}  // namespace slipstream::store
