// DecideStore on SQLite (a temporary file) and on the throwaway PostgreSQL cluster: specs and their versions,
// decisions with eventId idempotency, rewards (duplicates, sum, the default after the wait), shadow decisions
// written behind, and the model surviving a restart.
#include "agent/decide/decide_store.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <future>
#include <thread>

#include "base/arena.h"
#include "json/parse.h"
#include "store/postgres/pg_test_support.h"

namespace slipstream::agent::decide {
namespace {

using store::postgres::TestCluster;
using namespace std::chrono_literals;

template <typename T, typename Start>
DecideResult<T> wait(Start start) {
    auto p = std::make_shared<std::promise<DecideResult<T>>>();
    auto f = p->get_future();
    start([p](DecideResult<T> r) { p->set_value(std::move(r)); });
    if (f.wait_for(30s) != std::future_status::ready) return DecideError::internal("no answer in 30 s");
    return f.get();
}

store::QueryResult run(store::Database& db, std::string sql) {
    std::promise<store::QueryResult> p;
    (void)db.query(std::move(sql), {}, [&p](store::QueryResult r) { p.set_value(std::move(r)); });
    return p.get_future().get();
}

// A member of a JSON answer, as text ("" when absent).
std::string member(const std::string& json, std::string_view key) {
    base::Arena arena;
    auto v = json::parse(json, arena);
    if (!v.is_ok()) return "";
    const json::Value* m = v.value()->find(key);
    if (m == nullptr) return "";
    if (m->is_string()) return std::string(m->as_string());
    if (m->is_bool()) return m->as_bool() ? "true" : "false";
    if (m->type() == json::Type::kInt) return std::to_string(m->as_int());
    if (m->is_number()) return std::to_string(m->as_double());
    return m->is_null() ? "null" : "?";
}

enum class Kind { kSqlite, kPostgres };

const char* kSpec = R"({"actions":[{"id":"small"},{"id":"large"}],
  "features":{"context":[{"name":"len"}]},"reward":{"waitSeconds":10}})";

class DecideStoreTest : public ::testing::TestWithParam<Kind> {
  protected:
    void SetUp() override {
        if (GetParam() == Kind::kSqlite) {
            path_ = std::filesystem::temp_directory_path() /
                    ("ss-decide-" + std::to_string(::getpid()) + "-" + std::to_string(counter_++) + ".db");
            url_ = "sqlite://" + path_.string();
        } else {
            SLIPSTREAM_REQUIRE_CLUSTER(cluster);
            auto admin = store::Database::open({.url = "postgresql:" + cluster->conninfo()});
            ASSERT_TRUE(admin.is_ok());
            const std::string name = "decide_" + std::to_string(::getpid()) + "_" + std::to_string(counter_++);
            ASSERT_TRUE(run(**admin, "CREATE DATABASE " + name).is_ok());
            std::string conninfo = cluster->conninfo();
            conninfo.replace(conninfo.find("dbname=postgres"), 15, "dbname=" + name);
            url_ = "postgresql:" + conninfo;
        }
        open_store();
    }
    void TearDown() override {
        release_store();
        if (!path_.empty())
            for (const char* suffix : {"", "-wal", "-shm"})
                std::filesystem::remove(path_.string() + suffix);
    }
    void release_store() {
        if (store_) store_->close();
        for (int i = 0; i < 500 && store_ && store_.use_count() > 1; ++i)
            std::this_thread::sleep_for(10ms);
        store_.reset();
        db_.reset();
    }
    void open_store() {
        release_store();
        auto db = store::Database::open({.url = url_});
        ASSERT_TRUE(db.is_ok()) << db.status().to_string();
        db_ = std::shared_ptr<store::Database>(std::move(db).value());
        DecideStoreOptions options;
        options.limits = limits_;
        options.clock = clock_;
        auto s = DecideStore::open(db_, options);
        ASSERT_TRUE(s.is_ok()) << s.status().to_string();
        store_ = std::move(s).value();
    }
    DecideResult<SpecAnswer> put(const std::string& patch, std::optional<std::int64_t> expected = std::nullopt) {
        return wait<SpecAnswer>([&](auto done) { store_->put_spec("alice", ref_, patch, expected, done); });
    }
    DecideResult<DecideAnswer> decide(std::string context, std::string event_id = "", std::string body = "") {
        DecideRequest r;
        r.context_json = std::move(context);
        r.event_id = std::move(event_id);
        r.request_json = body.empty() ? r.context_json : body;
        return wait<DecideAnswer>([&](auto done) { store_->decide("alice", ref_, r, done); });
    }
    DecideResult<JsonAnswer> reward(const std::string& id, double value, std::string key = "") {
        RewardRequest r;
        r.decision_id = id;
        r.input.value = value;
        r.key = std::move(key);
        r.request_json = "{}";
        return wait<JsonAnswer>([&](auto done) { store_->reward("bob", ref_, r, done); });
    }
    std::string model_json() {
        auto m = store_->model(ref_);
        return m.is_ok() ? m.value().json : "";
    }

    static inline int counter_ = 0;
    std::filesystem::path path_;
    std::string url_;
    DecideLimits limits_;
    CapsuleRef ref_{"acme", "chat", "router"};
    std::shared_ptr<base::ManualClock> clock_ = std::make_shared<base::ManualClock>();
    std::shared_ptr<store::Database> db_;
    std::shared_ptr<DecideStore> store_;
};

TEST_P(DecideStoreTest, SpecVersionsMergePatchesAndErrors) {
    EXPECT_EQ(store_->get_spec(ref_).error().code, DecideErrorCode::kNotFound);
    auto created = put(kSpec);
    ASSERT_TRUE(created.is_ok()) << created.error().detail;
    EXPECT_TRUE(created.value().created);
    EXPECT_EQ(created.value().version, 1);
    EXPECT_EQ(created.value().generation, 1);
    // A patch of the exploration keeps the model (same generation); one of the actions starts a new one.
    auto patched = put(R"({"exploration":{"gamma":5}})");
    ASSERT_TRUE(patched.is_ok());
    EXPECT_EQ(patched.value().version, 2);
    EXPECT_EQ(patched.value().generation, 1);
    EXPECT_NE(patched.value().spec_json.find(R"("exploration":{"gamma":5})"), std::string::npos);
    auto bad = put(R"({"exploration":{"gamma":-1}})");
    ASSERT_FALSE(bad.is_ok());
    EXPECT_EQ(bad.error().code, DecideErrorCode::kBadSpec);
    EXPECT_EQ(bad.error().pointer, "/exploration/gamma");
    auto stale = put(R"({"mode":"frozen"})", 1);
    ASSERT_FALSE(stale.is_ok());
    EXPECT_EQ(stale.error().code, DecideErrorCode::kConflict);
    EXPECT_EQ(stale.error().current_version, 2);
    auto actions = put(R"({"actions":[{"id":"small"},{"id":"large"},{"id":"xl"}]})", 2);
    ASSERT_TRUE(actions.is_ok());
    EXPECT_EQ(actions.value().generation, 3);
    EXPECT_EQ(store_->get_spec(ref_).value().version, 3);
}

TEST_P(DecideStoreTest, EventIdsReplayOrConflict) {
    ASSERT_TRUE(put(kSpec).is_ok());
    auto first = decide(R"({"len":3})", "ev-1", R"({"context":{"len":3},"eventId":"ev-1"})");
    ASSERT_TRUE(first.is_ok()) << first.error().detail;
    EXPECT_FALSE(first.value().replayed);
    auto again = decide(R"({"len":3})", "ev-1", R"({"context":{"len":3},"eventId":"ev-1"})");
    ASSERT_TRUE(again.is_ok());
    EXPECT_TRUE(again.value().replayed);
    EXPECT_EQ(again.value().json, first.value().json);
    auto other = decide(R"({"len":4})", "ev-1", R"({"context":{"len":4},"eventId":"ev-1"})");
    ASSERT_FALSE(other.is_ok());
    EXPECT_EQ(other.error().code, DecideErrorCode::kConflict);
    auto bad = decide(R"({"len":"long"})");
    ASSERT_FALSE(bad.is_ok());
    EXPECT_EQ(bad.error().code, DecideErrorCode::kInvalid);
    EXPECT_EQ(bad.error().pointer, "/context");
}

TEST_P(DecideStoreTest, RewardsAreIdempotentAndLearned) {
    ASSERT_TRUE(put(kSpec).is_ok());
    auto d = decide(R"({"len":2})");
    ASSERT_TRUE(d.is_ok());
    const std::string id = member(d.value().json, "decisionId");
    EXPECT_EQ(id.size(), 34u);  // 12 hex digits of the creation time, then 22 random characters
    auto r = reward(id, 0.75);
    ASSERT_TRUE(r.is_ok()) << r.error().detail;
    EXPECT_EQ(member(r.value().json, "applied"), "true");
    auto dup = reward(id, 0.1);
    ASSERT_TRUE(dup.is_ok());
    EXPECT_EQ(member(dup.value().json, "applied"), "false");
    EXPECT_EQ(member(dup.value().json, "reason"), "duplicate: the decision has its reward");
    EXPECT_EQ(reward("no-such-decision-0000", 1.0).error().code, DecideErrorCode::kNotFound);
    EXPECT_EQ(member(model_json(), "version"), "1");
    auto got = wait<JsonAnswer>([&](auto done) { store_->get_decision(ref_, id, done); });
    ASSERT_TRUE(got.is_ok());
    EXPECT_EQ(member(got.value().json, "closed"), "true");
    EXPECT_EQ(member(got.value().json, "reward"), "0.750000");
    EXPECT_NE(got.value().json.find(R"("principal":"bob")"), std::string::npos);
}

TEST_P(DecideStoreTest, SumAggregatesUntilTheWaitAndDefaultsApply) {
    ASSERT_TRUE(put(R"({"actions":[{"id":"a"},{"id":"b"}],"reward":{"aggregation":"sum","range":[0,10],
                       "waitSeconds":5,"default":0.5}})")
                    .is_ok());
    const std::string summed = member(decide("{}").value().json, "decisionId");
    const std::string silent = member(decide("{}").value().json, "decisionId");
    EXPECT_EQ(member(reward(summed, 1.0, "k1").value().json, "applied"), "true");
    EXPECT_EQ(member(reward(summed, 2.0, "k2").value().json, "applied"), "true");
    EXPECT_EQ(member(reward(summed, 2.0, "k2").value().json, "applied"), "false");
    EXPECT_EQ(member(model_json(), "version"), "0");
    // Before the wait nothing closes; after it, the sum and the default are learned.
    EXPECT_EQ(wait<std::int64_t>([&](auto done) { store_->sweep(done); }).value(), 0);
    clock_->advance(6'000'000'000);
    EXPECT_EQ(wait<std::int64_t>([&](auto done) { store_->sweep(done); }).value(), 2);
    EXPECT_EQ(member(model_json(), "version"), "2");
    auto a = wait<JsonAnswer>([&](auto done) { store_->get_decision(ref_, summed, done); });
    EXPECT_EQ(member(a.value().json, "reward"), "3.000000");
    auto b = wait<JsonAnswer>([&](auto done) { store_->get_decision(ref_, silent, done); });
    EXPECT_EQ(member(b.value().json, "reward"), "0.500000");
    EXPECT_EQ(member(reward(summed, 1.0, "k3").value().json, "applied"), "false");
}

TEST_P(DecideStoreTest, ShadowDecisionsAreWrittenBehindAndNeverLearn) {
    ASSERT_TRUE(put(R"({"actions":[{"id":"a"},{"id":"b"}],"mode":"frozen"})").is_ok());
    auto d = decide("{}");
    ASSERT_TRUE(d.is_ok());
    EXPECT_EQ(member(d.value().json, "mode"), "frozen");
    // The reward waits for the queued decision to be written.
    auto r = reward(member(d.value().json, "decisionId"), 1.0);
    ASSERT_TRUE(r.is_ok()) << r.error().detail;
    EXPECT_EQ(member(r.value().json, "applied"), "true");
    EXPECT_EQ(member(model_json(), "version"), "0");
    EXPECT_EQ(member(model_json(), "shadowLost"), "0");
}

TEST_P(DecideStoreTest, AFlushWritesEveryQueuedDecisionInBatches) {
    limits_.shadow_batch = 3;          // 10 queued decisions: batches of 3, 3, 3 and 1
    limits_.shadow_flush_ms = 60'000;  // nothing flushes on time: the reward's wait does
    open_store();
    ASSERT_TRUE(put(R"({"actions":[{"id":"a"},{"id":"b"}],"mode":"frozen"})").is_ok());
    std::string last;
    for (int i = 0; i < 10; ++i) {
        auto d = decide("{}");
        ASSERT_TRUE(d.is_ok());
        last = member(d.value().json, "decisionId");
    }
    auto r = reward(last, 1.0);
    ASSERT_TRUE(r.is_ok()) << r.error().detail;
    EXPECT_EQ(member(r.value().json, "applied"), "true");
    store::QueryResult count = run(*db_, "SELECT count(*) FROM decide_decisions");
    ASSERT_TRUE(count.is_ok());
    EXPECT_EQ(std::get<std::int64_t>(count->value(0, 0)), 10);
    EXPECT_EQ(member(model_json(), "shadowLost"), "0");
}

TEST_P(DecideStoreTest, TheModelSurvivesARestart) {
    limits_.snapshot_every = 7;  // a snapshot and a replayed tail
    open_store();
    ASSERT_TRUE(put(kSpec).is_ok());
    for (int i = 0; i < 20; ++i) {
        auto d = decide("{\"len\":" + std::to_string(i % 5) + "}");
        ASSERT_TRUE(d.is_ok());
        ASSERT_TRUE(reward(member(d.value().json, "decisionId"), (i % 5) / 5.0).is_ok());
    }
    const std::string before = model_json();
    auto probe = decide(R"({"len":3})");
    ASSERT_TRUE(probe.is_ok());
    open_store();
    EXPECT_EQ(model_json().substr(0, before.find("\"decisions\"")), before.substr(0, before.find("\"decisions\"")));
    EXPECT_EQ(member(model_json(), "version"), "20");
    // Same scores after the restart: the ranking of the same context matches.
    auto after = decide(R"({"len":3})");
    ASSERT_TRUE(after.is_ok());
    const std::string a = probe.value().json, b = after.value().json;
    EXPECT_EQ(a.substr(a.find("\"ranking\""), a.find("\"mode\"") - a.find("\"ranking\"")),
              b.substr(b.find("\"ranking\""), b.find("\"mode\"") - b.find("\"ranking\"")));
}

TEST_P(DecideStoreTest, PagesOfDecisions) {
    ASSERT_TRUE(put(kSpec).is_ok());
    for (int i = 0; i < 5; ++i) {
        ASSERT_TRUE(decide("{}").is_ok());
        clock_->advance(1'000'000);
    }
    DecisionQuery q;
    q.limit = 2;
    std::size_t seen = 0;
    for (int page = 0; page < 4; ++page) {
        auto p = wait<JsonAnswer>([&](auto done) { store_->list_decisions(ref_, q, done); });
        ASSERT_TRUE(p.is_ok()) << p.error().detail;
        std::size_t n = 0;
        for (std::size_t at = p.value().json.find("decisionId"); at != std::string::npos;
             at = p.value().json.find("decisionId", at + 1))
            ++n;
        seen += n;
        q.after = member(p.value().json, "next");
        if (q.after == "null") break;
    }
    EXPECT_EQ(seen, 5u);
    q.after = "garbage";
    EXPECT_EQ(wait<JsonAnswer>([&](auto done) { store_->list_decisions(ref_, q, done); }).error().pointer, "/after");
}

TEST_P(DecideStoreTest, ConcurrentRewardsAreEachLearnedOnce) {
    ASSERT_TRUE(put(kSpec).is_ok());
    std::vector<std::string> ids;
    for (int i = 0; i < 40; ++i)
        ids.push_back(member(decide("{\"len\":" + std::to_string(i % 4) + "}").value().json, "decisionId"));
    // 40 rewards at once, and each of the first 5 decisions rewarded 4 more times concurrently: exactly one wins.
    std::vector<std::future<DecideResult<JsonAnswer>>> answers;
    auto send = [&](const std::string& id, double value) {
        auto p = std::make_shared<std::promise<DecideResult<JsonAnswer>>>();
        answers.push_back(p->get_future());
        RewardRequest r;
        r.decision_id = id;
        r.input.value = value;
        r.request_json = "{}";
        store_->reward("bob", ref_, r, [p](DecideResult<JsonAnswer> a) { p->set_value(std::move(a)); });
    };
    for (int i = 0; i < 40; ++i) {
        send(ids[static_cast<std::size_t>(i)], (i % 4) / 4.0);
        if (i < 5)
            for (int k = 0; k < 4; ++k)
                send(ids[static_cast<std::size_t>(i)], 1.0);
    }
    int applied = 0;
    for (auto& f : answers) {
        ASSERT_EQ(f.wait_for(30s), std::future_status::ready);
        DecideResult<JsonAnswer> a = f.get();
        ASSERT_TRUE(a.is_ok()) << a.error().detail;
        applied += member(a.value().json, "applied") == "true";
    }
    EXPECT_EQ(applied, 40);
    const std::string live = model_json();
    EXPECT_EQ(member(live, "version"), "40");
    // The model in memory is the one the learning log rebuilds.
    open_store();
    const std::string rebuilt = model_json();
    EXPECT_EQ(rebuilt.substr(0, rebuilt.find("\"decisions\"")), live.substr(0, live.find("\"decisions\"")));
}

INSTANTIATE_TEST_SUITE_P(Backends, DecideStoreTest, ::testing::Values(Kind::kSqlite, Kind::kPostgres),
                         [](const auto& info) { return info.param == Kind::kSqlite ? "Sqlite" : "Postgres"; });

}  // namespace
}  // namespace slipstream::agent::decide
