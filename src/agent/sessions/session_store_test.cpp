// SessionStore on SQLite (a temporary file) and on the throwaway PostgreSQL cluster: every operation, its
// errors, limits, expiry, idempotent appends under concurrency, restarts.
#include "agent/sessions/session_store.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <future>
#include <set>
#include <thread>

#include "agent/sessions/session_schema.h"
#include "store/postgres/pg_test_support.h"

namespace slipstream::agent::sessions {
namespace {

using store::postgres::TestCluster;
using namespace std::chrono_literals;

// Runs one store operation and waits for its answer.
template <typename T, typename Start>
SessionResult<T> wait(Start start) {
    auto p = std::make_shared<std::promise<SessionResult<T>>>();
    auto f = p->get_future();
    start([p](SessionResult<T> r) { p->set_value(std::move(r)); });
    if (f.wait_for(30s) != std::future_status::ready) return SessionError::internal("no answer in 30 s");
    return f.get();
}

store::QueryResult run(store::Database& db, std::string sql) {
    std::promise<store::QueryResult> p;
    (void)db.query(std::move(sql), {}, [&p](store::QueryResult r) { p.set_value(std::move(r)); });
    return p.get_future().get();
}

enum class Kind { kSqlite, kPostgres };

class SessionStoreTest : public ::testing::TestWithParam<Kind> {
  protected:
    void SetUp() override {
        if (GetParam() == Kind::kSqlite) {
            path_ = std::filesystem::temp_directory_path() /
                    ("ss-sessions-" + std::to_string(::getpid()) + "-" + std::to_string(counter_++) + ".db");
            url_ = "sqlite://" + path_.string();
        } else {
            SLIPSTREAM_REQUIRE_CLUSTER(cluster);
            // A database per test: sweeps and counts see only this test's sessions.
            auto admin = store::Database::open({.url = "postgresql:" + cluster->conninfo()});
            ASSERT_TRUE(admin.is_ok());
            const std::string name = "sessions_" + std::to_string(::getpid()) + "_" + std::to_string(counter_++);
            ASSERT_TRUE(run(**admin, "CREATE DATABASE " + name).is_ok());
            std::string conninfo = cluster->conninfo();
            conninfo.replace(conninfo.find("dbname=postgres"), 15, "dbname=" + name);
            url_ = "postgresql:" + conninfo;
        }
        open_store();
    }
    void TearDown() override {
        release_store();
        db_.reset();
        if (!path_.empty())
            for (const char* suffix : {"", "-wal", "-shm"})
                std::filesystem::remove(path_.string() + suffix);
    }
    // Waits until no callback holds the store any more (answers come before their callbacks are destroyed), so
    // that the store and the Database close on this thread.
    void release_store() {
        if (store_) store_->close();  // buffered: writes the queue
        for (int i = 0; i < 500 && store_ && store_.use_count() > 1; ++i)
            std::this_thread::sleep_for(10ms);
        store_.reset();
    }
    void open_store() {
        release_store();
        db_.reset();
        auto db = store::Database::open({.url = url_});
        ASSERT_TRUE(db.is_ok()) << db.status().to_string();
        db_ = std::shared_ptr<store::Database>(std::move(db).value());
        SessionStoreOptions options;
        options.limits = limits_;
        options.clock = clock_;
        options.durability = durability_;
        options.buffer = buffer_;
        options.append_in_flight = append_in_flight_;
        auto s = SessionStore::open(db_, options);
        ASSERT_TRUE(s.is_ok()) << s.status().to_string();
        store_ = std::move(s).value();
    }
    SessionInfo create(const std::string& owner, NewSession session = {}) {
        auto r = wait<SessionInfo>([&](auto done) { store_->create(owner, session, done); });
        EXPECT_TRUE(r.is_ok()) << (r.is_ok() ? "" : r.error().detail);
        return r.is_ok() ? r.value() : SessionInfo{};
    }
    SessionResult<AppendResult> append(const std::string& owner, const std::string& id, std::vector<NewEvent> events,
                                       const std::string& key = "") {
        return wait<AppendResult>([&](auto done) { store_->append(owner, id, events, key, done); });
    }
    SessionResult<EventPage> events(const std::string& owner, const std::string& id, std::int64_t after,
                                    std::size_t limit) {
        return wait<EventPage>([&](auto done) { store_->events(owner, id, after, limit, done); });
    }
    std::int64_t count(const std::string& sql) {
        store::QueryResult r = run(*db_, sql);
        EXPECT_TRUE(r.is_ok()) << r.status().to_string();
        return r.is_ok() ? std::stoll(std::string(r->text(0, 0))) : -1;
    }

    static inline int counter_ = 0;
    std::filesystem::path path_;
    std::string url_;
    SessionLimits limits_;
    Durability durability_ = Durability::kDurable;
    WriteBehindOptions buffer_;
    std::size_t append_in_flight_ = 4;
    std::shared_ptr<base::ManualClock> clock_ = std::make_shared<base::ManualClock>();
    std::shared_ptr<store::Database> db_;
    std::shared_ptr<SessionStore> store_;
};

SessionErrorCode code_of(const auto& result) {
    EXPECT_FALSE(result.is_ok());
    return result.is_ok() ? SessionErrorCode::kInternal : result.error().code;
}

TEST_P(SessionStoreTest, CreateGetAndListByOwnerInPages) {
    SessionInfo a = create("alice", {.metadata_json = R"({ "title" : "trip" })"});
    EXPECT_EQ(a.owner, "alice");
    EXPECT_EQ(a.metadata_json, R"({"title":"trip"})");
    EXPECT_EQ(a.state_version, 1);
    EXPECT_EQ(a.last_seq, 0);
    EXPECT_EQ(a.expires_at_ms - a.created_at_ms, limits_.default_ttl_ms);
    create("alice");
    create("alice");
    create("bob");

    auto got = wait<SessionInfo>([&](auto done) { store_->get("alice", a.id, done); });
    ASSERT_TRUE(got.is_ok());
    EXPECT_EQ(got.value().metadata_json, R"({"title":"trip"})");
    EXPECT_EQ(got.value().created_at_ms, a.created_at_ms);
    EXPECT_EQ(code_of(wait<SessionInfo>([&](auto done) { store_->get("bob", a.id, done); })),
              SessionErrorCode::kForbidden);
    EXPECT_EQ(code_of(wait<SessionInfo>([&](auto done) { store_->get("alice", "AAAAAAAAAAAAAAAAAAAAAA", done); })),
              SessionErrorCode::kNotFound);

    auto first = wait<SessionPage>([&](auto done) { store_->list("alice", "", 2, done); });
    ASSERT_TRUE(first.is_ok());
    ASSERT_EQ(first.value().sessions.size(), 2u);
    ASSERT_FALSE(first.value().next_after.empty());
    auto second = wait<SessionPage>([&](auto done) { store_->list("alice", first.value().next_after, 2, done); });
    ASSERT_TRUE(second.is_ok());
    ASSERT_EQ(second.value().sessions.size(), 1u);
    EXPECT_TRUE(second.value().next_after.empty());
    std::set<std::string> ids{first.value().sessions[0].id, first.value().sessions[1].id,
                              second.value().sessions[0].id};
    EXPECT_EQ(ids.size(), 3u);
    EXPECT_EQ(ids.count(a.id), 1u);
}

TEST_P(SessionStoreTest, AppendBatchRetriedWithItsKeyIsNotDoubled) {
    SessionInfo s = create("alice");
    auto batch = append("alice", s.id, {{"user", R"({"text": "hi"})"}, {"assistant", R"("hello")"}, {"tool", "[1, 2]"}},
                        "key-1");
    ASSERT_TRUE(batch.is_ok());
    EXPECT_EQ(batch.value().first_seq, 1);
    EXPECT_EQ(batch.value().last_seq, 3);
    EXPECT_FALSE(batch.value().replayed);
    auto retried = append("alice", s.id, {{"user", R"({"text": "hi"})"}}, "key-1");
    ASSERT_TRUE(retried.is_ok());
    EXPECT_EQ(retried.value().first_seq, 1);
    EXPECT_EQ(retried.value().last_seq, 3);
    EXPECT_TRUE(retried.value().replayed);
    auto one = append("alice", s.id, {{"user", "42"}});
    ASSERT_TRUE(one.is_ok());
    EXPECT_EQ(one.value().first_seq, 4);
    EXPECT_EQ(one.value().last_seq, 4);

    auto page = events("alice", s.id, 0, 2);
    ASSERT_TRUE(page.is_ok());
    ASSERT_EQ(page.value().events.size(), 2u);
    EXPECT_EQ(page.value().last_seq, 4);
    EXPECT_EQ(page.value().events[0].seq, 1);
    EXPECT_EQ(page.value().events[0].role, "user");
    EXPECT_EQ(page.value().events[0].content_json, R"({"text":"hi"})");
    EXPECT_EQ(page.value().events[1].content_json, R"("hello")");
    auto rest = events("alice", s.id, 2, 100);
    ASSERT_TRUE(rest.is_ok());
    ASSERT_EQ(rest.value().events.size(), 2u);
    EXPECT_EQ(rest.value().events[0].seq, 3);
    EXPECT_EQ(rest.value().events[1].seq, 4);
    auto none = events("alice", s.id, 4, 100);
    ASSERT_TRUE(none.is_ok());
    EXPECT_TRUE(none.value().events.empty());
    EXPECT_EQ(none.value().last_seq, 4);
    EXPECT_EQ(count("SELECT COUNT(*) FROM agent_session_events"), 4);

    EXPECT_EQ(code_of(append("bob", s.id, {{"user", "1"}})), SessionErrorCode::kForbidden);
    EXPECT_EQ(code_of(events("bob", s.id, 0, 10)), SessionErrorCode::kForbidden);
    EXPECT_EQ(code_of(append("alice", "AAAAAAAAAAAAAAAAAAAAAA", {{"user", "1"}})), SessionErrorCode::kNotFound);
    EXPECT_EQ(code_of(append("alice", s.id, {})), SessionErrorCode::kInvalid);
    EXPECT_EQ(code_of(append("alice", s.id, {{"", "1"}})), SessionErrorCode::kInvalid);
    EXPECT_EQ(code_of(append("alice", s.id, {{"user", "{nope"}})), SessionErrorCode::kInvalid);
    EXPECT_EQ(count("SELECT COUNT(*) FROM agent_session_events"), 4);
}

TEST_P(SessionStoreTest, ConcurrentAppendsGetEverySeqOnceAndRetriesAreNotDoubled) {
    SessionInfo s = create("alice");
    constexpr int kWriters = 40;
    std::vector<std::future<SessionResult<AppendResult>>> answers;
    for (int round = 0; round < 2; ++round)  // the second round retries every key
        for (int i = 0; i < kWriters; ++i) {
            auto p = std::make_shared<std::promise<SessionResult<AppendResult>>>();
            answers.push_back(p->get_future());
            store_->append("alice", s.id, {{"user", std::to_string(i)}}, "k" + std::to_string(i),
                           [p](SessionResult<AppendResult> r) { p->set_value(std::move(r)); });
        }
    std::set<std::int64_t> seqs;
    int replayed = 0;
    for (auto& f : answers) {
        ASSERT_EQ(f.wait_for(30s), std::future_status::ready);
        SessionResult<AppendResult> r = f.get();
        ASSERT_TRUE(r.is_ok()) << r.error().detail;
        EXPECT_EQ(r.value().first_seq, r.value().last_seq);
        replayed += r.value().replayed ? 1 : 0;
        seqs.insert(r.value().first_seq);
    }
    EXPECT_EQ(replayed, kWriters);
    ASSERT_EQ(seqs.size(), static_cast<std::size_t>(kWriters));
    EXPECT_EQ(*seqs.begin(), 1);
    EXPECT_EQ(*seqs.rbegin(), kWriters);
    EXPECT_EQ(count("SELECT COUNT(*) FROM agent_session_events"), kWriters);
}

TEST_P(SessionStoreTest, OneKeyFromManyConcurrentWritersIsAppendedOnce) {
    SessionInfo s = create("alice");
    constexpr int kWriters = 24;
    std::vector<std::future<SessionResult<AppendResult>>> answers;
    for (int i = 0; i < kWriters; ++i) {
        auto p = std::make_shared<std::promise<SessionResult<AppendResult>>>();
        answers.push_back(p->get_future());
        store_->append("alice", s.id, {{"user", "1"}, {"tool", "2"}}, "the-key",
                       [p](SessionResult<AppendResult> r) { p->set_value(std::move(r)); });
    }
    int fresh = 0;
    for (auto& f : answers) {
        ASSERT_EQ(f.wait_for(30s), std::future_status::ready);
        SessionResult<AppendResult> r = f.get();
        ASSERT_TRUE(r.is_ok()) << r.error().detail;
        EXPECT_EQ(r.value().first_seq, 1);
        EXPECT_EQ(r.value().last_seq, 2);
        fresh += r.value().replayed ? 0 : 1;
    }
    EXPECT_EQ(fresh, 1);
    EXPECT_EQ(count("SELECT COUNT(*) FROM agent_session_events"), 2);
    EXPECT_EQ(count("SELECT COUNT(*) FROM agent_session_appends"), 1);
}

TEST_P(SessionStoreTest, AppendsInterleavedWithStateWritesAndCreatesAllCommit) {
    // On SQLite one-hop appends and multi-statement creates share groups: every one is kept.
    SessionInfo s = create("alice");
    constexpr int kRounds = 30;
    std::vector<std::future<bool>> answers;
    for (int i = 0; i < kRounds; ++i) {
        auto a = std::make_shared<std::promise<bool>>();
        answers.push_back(a->get_future());
        store_->append("alice", s.id, {{"user", std::to_string(i)}}, "",
                       [a](SessionResult<AppendResult> r) { a->set_value(r.is_ok()); });
        auto w = std::make_shared<std::promise<bool>>();
        answers.push_back(w->get_future());
        store_->put_state("alice", s.id, R"({"n":)" + std::to_string(i) + "}", std::nullopt,
                          [w](SessionResult<StateDocument> r) { w->set_value(r.is_ok()); });
        auto c = std::make_shared<std::promise<bool>>();
        answers.push_back(c->get_future());
        store_->create("bob", {}, [c](SessionResult<SessionInfo> r) { c->set_value(r.is_ok()); });
    }
    for (auto& f : answers) {
        ASSERT_EQ(f.wait_for(30s), std::future_status::ready);
        EXPECT_TRUE(f.get());
    }
    EXPECT_EQ(count("SELECT COUNT(*) FROM agent_session_events"), kRounds);
    EXPECT_EQ(count("SELECT MAX(seq) FROM agent_session_events"), kRounds);
    EXPECT_EQ(count("SELECT state_version FROM agent_sessions WHERE owner = 'alice'"), kRounds + 1);
    EXPECT_EQ(count("SELECT COUNT(*) FROM agent_sessions WHERE owner = 'bob'"), kRounds);
}

TEST_P(SessionStoreTest, ConcurrentAppendsToManySessionsAreGroupedAndAnsweredOneByOne) {
    // PostgreSQL: one statement out at a time, so what arrives meanwhile goes out in groups (one per session);
    // every member gets its own answer: its range, a replay, 403, 404 or the limit.
    limits_.max_events_per_session = 6;
    append_in_flight_ = 1;
    open_store();
    constexpr int kSessions = 10;
    constexpr int kPerSession = 5;
    std::vector<std::string> ids;
    for (int i = 0; i < kSessions; ++i)
        ids.push_back(create("alice").id);
    using Answer = std::future<SessionResult<AppendResult>>;
    auto send = [&](const std::string& owner, const std::string& id, std::vector<NewEvent> events,
                    const std::string& key) {
        auto p = std::make_shared<std::promise<SessionResult<AppendResult>>>();
        store_->append(owner, id, std::move(events), key,
                       [p](SessionResult<AppendResult> r) { p->set_value(std::move(r)); });
        return p->get_future();
    };
    auto key = [](int s, int j) { return "k" + std::to_string(s) + "-" + std::to_string(j); };
    // Round 1: every session's appends interleaved, one of them a batch of two; bob's and an unknown id's too.
    std::vector<std::vector<Answer>> first(kSessions);
    for (int j = 0; j < kPerSession; ++j)
        for (int s = 0; s < kSessions; ++s) {
            std::vector<NewEvent> events{{"user", std::to_string(j)}};
            if (s == 2 && j == 0) events.push_back({"tool", "\"quoted, {braced} \\\\ text\""});
            first[s].push_back(send("alice", ids[s], std::move(events), key(s, j)));
        }
    Answer forbidden = send("bob", ids[0], {{"user", "1"}}, "");
    Answer unknown = send("alice", "AAAAAAAAAAAAAAAAAAAAAA", {{"user", "1"}}, "");
    std::vector<std::vector<AppendResult>> ranges(kSessions);
    for (int s = 0; s < kSessions; ++s) {
        std::set<std::int64_t> seqs;
        for (Answer& f : first[s]) {
            ASSERT_EQ(f.wait_for(30s), std::future_status::ready);
            SessionResult<AppendResult> r = f.get();
            ASSERT_TRUE(r.is_ok()) << r.error().detail;
            EXPECT_FALSE(r.value().replayed);
            for (std::int64_t q = r.value().first_seq; q <= r.value().last_seq; ++q)
                EXPECT_TRUE(seqs.insert(q).second);
            ranges[s].push_back(r.value());
        }
        const std::size_t expected = s == 2 ? kPerSession + 1 : kPerSession;
        EXPECT_EQ(seqs.size(), expected);
        EXPECT_EQ(*seqs.begin(), 1);
        EXPECT_EQ(*seqs.rbegin(), static_cast<std::int64_t>(expected));
    }
    ASSERT_EQ(forbidden.wait_for(30s), std::future_status::ready);
    EXPECT_EQ(code_of(forbidden.get()), SessionErrorCode::kForbidden);
    ASSERT_EQ(unknown.wait_for(30s), std::future_status::ready);
    EXPECT_EQ(code_of(unknown.get()), SessionErrorCode::kNotFound);
    // Round 2: every key again (the original ranges come back), and session 1 filled past its limit.
    std::vector<std::vector<Answer>> again(kSessions);
    for (int j = 0; j < kPerSession; ++j)
        for (int s = 0; s < kSessions; ++s)
            again[s].push_back(send("alice", ids[s], {{"user", "0"}}, key(s, j)));
    Answer sixth = send("alice", ids[1], {{"user", "6"}}, "");
    Answer seventh = send("alice", ids[1], {{"user", "7"}}, "");
    for (int s = 0; s < kSessions; ++s)
        for (int j = 0; j < kPerSession; ++j) {
            ASSERT_EQ(again[s][j].wait_for(30s), std::future_status::ready);
            SessionResult<AppendResult> r = again[s][j].get();
            ASSERT_TRUE(r.is_ok()) << r.error().detail;
            EXPECT_TRUE(r.value().replayed);
            EXPECT_EQ(r.value().first_seq, ranges[s][j].first_seq);
            EXPECT_EQ(r.value().last_seq, ranges[s][j].last_seq);
        }
    ASSERT_EQ(sixth.wait_for(30s), std::future_status::ready);
    ASSERT_EQ(seventh.wait_for(30s), std::future_status::ready);
    SessionResult<AppendResult> a6 = sixth.get();
    SessionResult<AppendResult> a7 = seventh.get();
    EXPECT_NE(a6.is_ok(), a7.is_ok());  // one of the two fits
    EXPECT_EQ((a6.is_ok() ? a7 : a6).error().limit, "events_per_session");
    EXPECT_EQ(count("SELECT COUNT(*) FROM agent_session_events"), kSessions * kPerSession + 2);
    EXPECT_EQ(count("SELECT COUNT(*) FROM agent_session_appends"), kSessions * kPerSession);
    // The batch's second event kept its text byte for byte through the group's array literal.
    SessionResult<EventPage> page = events("alice", ids[2], 0, 100);
    ASSERT_TRUE(page.is_ok());
    bool found = false;
    for (const EventRecord& e : page.value().events)
        found = found || (e.role == "tool" && e.content_json == "\"quoted, {braced} \\\\ text\"");
    EXPECT_TRUE(found);
    if (GetParam() == Kind::kPostgres) {
        EXPECT_GT(store_->stats().grouped.load(), 0u);
    }
}

TEST_P(SessionStoreTest, ConcurrentWritesThatFailLeaveTheOthersCommitted) {
    // On SQLite these share transactions (group commit): a refused append is undone alone.
    limits_.max_events_per_session = 5;
    open_store();
    SessionInfo s = create("alice");
    std::vector<std::future<SessionResult<AppendResult>>> answers;
    for (int i = 0; i < 12; ++i) {
        auto p = std::make_shared<std::promise<SessionResult<AppendResult>>>();
        answers.push_back(p->get_future());
        store_->append("alice", s.id, {{"user", std::to_string(i)}}, "",
                       [p](SessionResult<AppendResult> r) { p->set_value(std::move(r)); });
    }
    int ok = 0;
    int refused = 0;
    for (auto& f : answers) {
        ASSERT_EQ(f.wait_for(30s), std::future_status::ready);
        SessionResult<AppendResult> r = f.get();
        if (r.is_ok()) {
            ++ok;
        } else {
            EXPECT_EQ(r.error().limit, "events_per_session");
            ++refused;
        }
    }
    EXPECT_EQ(ok, 5);
    EXPECT_EQ(refused, 7);
    EXPECT_EQ(count("SELECT COUNT(*) FROM agent_session_events"), 5);
    EXPECT_EQ(count("SELECT MAX(seq) FROM agent_session_events"), 5);
}

TEST_P(SessionStoreTest, BufferedAppendsAreReadBackAtOnceAndWrittenByClose) {
    durability_ = Durability::kBuffered;
    buffer_.flush_ms = 60'000;  // nothing is written before close()
    open_store();
    SessionInfo s = create("alice");
    SessionResult<AppendResult> a = append("alice", s.id, {{"user", "1"}, {"assistant", "2"}}, "k1");
    ASSERT_TRUE(a.is_ok()) << a.error().detail;
    EXPECT_EQ((std::pair{a.value().first_seq, a.value().last_seq}), (std::pair<std::int64_t, std::int64_t>{1, 2}));
    ASSERT_TRUE(append("alice", s.id, {{"user", "3"}}, "k2").is_ok());
    SessionResult<AppendResult> again = append("alice", s.id, {{"user", "1"}}, "k1");
    ASSERT_TRUE(again.is_ok());
    EXPECT_TRUE(again.value().replayed);
    EXPECT_EQ(again.value().first_seq, 1);
    EXPECT_EQ(code_of(append("bob", s.id, {{"user", "1"}})), SessionErrorCode::kForbidden);
    EXPECT_EQ(code_of(append("alice", "unknown-session-id-0000", {{"user", "1"}})), SessionErrorCode::kNotFound);

    SessionResult<EventPage> page = events("alice", s.id, 1, 10);  // read back before any flush
    ASSERT_TRUE(page.is_ok());
    ASSERT_EQ(page.value().events.size(), 2u);
    EXPECT_EQ(page.value().events[0].seq, 2);
    EXPECT_EQ(page.value().events[1].content_json, "3");
    EXPECT_EQ(page.value().last_seq, 3);
    auto info = wait<SessionInfo>([&](auto done) { store_->get("alice", s.id, done); });
    ASSERT_TRUE(info.is_ok());
    EXPECT_EQ(info.value().last_seq, 3);
    EXPECT_EQ(count("SELECT COUNT(*) FROM agent_session_events"), 0);

    open_store();  // close() wrote the queue
    EXPECT_EQ(count("SELECT COUNT(*) FROM agent_session_events"), 3);
    EXPECT_EQ(count("SELECT last_seq FROM agent_sessions"), 3);
    SessionResult<AppendResult> replay = append("alice", s.id, {{"user", "3"}}, "k2");  // the key from the store
    ASSERT_TRUE(replay.is_ok());
    EXPECT_TRUE(replay.value().replayed);
    EXPECT_EQ(replay.value().first_seq, 3);
    ASSERT_TRUE(append("alice", s.id, {{"user", "4"}}).is_ok());
    page = events("alice", s.id, 0, 10);
    ASSERT_TRUE(page.is_ok());
    ASSERT_EQ(page.value().events.size(), 4u);
    EXPECT_EQ(page.value().events[3].seq, 4);
}

TEST_P(SessionStoreTest, BufferedFlushesWithinTheIntervalAndRefusesPastTheQueue) {
    durability_ = Durability::kBuffered;
    buffer_.flush_ms = 10;
    buffer_.max_queued_events = 4;
    limits_.max_events_per_session = 6;
    open_store();
    SessionInfo s = create("alice");
    SessionResult<AppendResult> full = append("alice", s.id, std::vector<NewEvent>(5, NewEvent{"user", "0"}));
    EXPECT_EQ(code_of(full), SessionErrorCode::kBusy);
    EXPECT_GE(full.error().retry_after_s, 1);
    ASSERT_TRUE(append("alice", s.id, std::vector<NewEvent>(4, NewEvent{"user", "0"})).is_ok());
    for (int i = 0; i < 300 && count("SELECT COUNT(*) FROM agent_session_events") < 4; ++i)
        std::this_thread::sleep_for(10ms);
    EXPECT_EQ(count("SELECT COUNT(*) FROM agent_session_events"), 4);
    EXPECT_EQ(code_of(append("alice", s.id, std::vector<NewEvent>(3, NewEvent{"user", "0"}))),
              SessionErrorCode::kLimit);

    // Many writers at once, every key twice: every seq once, nothing doubled, after the flushes.
    SessionInfo t = create("alice");
    std::vector<std::future<SessionResult<AppendResult>>> answers;
    limits_.max_events_per_session = 1000;
    buffer_.max_queued_events = 1000;
    open_store();
    for (int round = 0; round < 2; ++round)
        for (int i = 0; i < 40; ++i) {
            auto p = std::make_shared<std::promise<SessionResult<AppendResult>>>();
            answers.push_back(p->get_future());
            store_->append("alice", t.id, {{"user", std::to_string(i)}}, "k" + std::to_string(i),
                           [p](SessionResult<AppendResult> r) { p->set_value(std::move(r)); });
        }
    std::set<std::int64_t> seqs;
    for (auto& f : answers) {
        ASSERT_EQ(f.wait_for(30s), std::future_status::ready);
        SessionResult<AppendResult> r = f.get();
        ASSERT_TRUE(r.is_ok()) << r.error().detail;
        seqs.insert(r.value().first_seq);
    }
    EXPECT_EQ(seqs.size(), 40u);
    EXPECT_EQ(*seqs.rbegin(), 40);
    open_store();
    EXPECT_EQ(count("SELECT COUNT(*) FROM agent_session_events WHERE session_id = '" + t.id + "'"), 40);
}

TEST_P(SessionStoreTest, StateWritesNeedTheCurrentVersion) {
    SessionInfo s = create("alice", {.state_json = R"({"step":1,"keep":true})"});
    auto get_state = [&](const std::string& owner) {
        return wait<StateDocument>([&](auto done) { store_->get_state(owner, s.id, done); });
    };
    auto initial = get_state("alice");
    ASSERT_TRUE(initial.is_ok());
    EXPECT_EQ(initial.value().version, 1);
    EXPECT_EQ(initial.value().state_json, R"({"step":1,"keep":true})");

    auto put = wait<StateDocument>([&](auto done) { store_->put_state("alice", s.id, R"({"step": 2})", 1, done); });
    ASSERT_TRUE(put.is_ok());
    EXPECT_EQ(put.value().version, 2);
    auto stale = wait<StateDocument>([&](auto done) { store_->put_state("alice", s.id, R"({"step":9})", 1, done); });
    ASSERT_EQ(code_of(stale), SessionErrorCode::kConflict);
    EXPECT_EQ(stale.error().current_version, 2);
    auto stale_patch =
        wait<StateDocument>([&](auto done) { store_->patch_state("alice", s.id, R"({"x":1})", 7, done); });
    ASSERT_EQ(code_of(stale_patch), SessionErrorCode::kConflict);
    EXPECT_EQ(stale_patch.error().current_version, 2);

    auto patched = wait<StateDocument>(
        [&](auto done) { store_->patch_state("alice", s.id, R"({"step":null,"plan":{"a":1}})", 2, done); });
    ASSERT_TRUE(patched.is_ok());
    EXPECT_EQ(patched.value().version, 3);
    EXPECT_EQ(patched.value().state_json, R"({"plan":{"a":1}})");
    auto unconditional = wait<StateDocument>(
        [&](auto done) { store_->patch_state("alice", s.id, R"({"plan":{"b":2}})", std::nullopt, done); });
    ASSERT_TRUE(unconditional.is_ok());
    EXPECT_EQ(unconditional.value().version, 4);
    auto now = get_state("alice");
    ASSERT_TRUE(now.is_ok());
    EXPECT_EQ(now.value().state_json, R"({"plan":{"a":1,"b":2}})");
    EXPECT_EQ(now.value().version, 4);

    EXPECT_EQ(code_of(get_state("bob")), SessionErrorCode::kForbidden);
    EXPECT_EQ(
        code_of(wait<StateDocument>([&](auto done) { store_->put_state("bob", s.id, "{}", std::nullopt, done); })),
        SessionErrorCode::kForbidden);
    EXPECT_EQ(
        code_of(wait<StateDocument>([&](auto done) { store_->put_state("alice", s.id, "{x", std::nullopt, done); })),
        SessionErrorCode::kInvalid);
    EXPECT_EQ(code_of(wait<StateDocument>(
                  [&](auto done) { store_->put_state("alice", "AAAAAAAAAAAAAAAAAAAAAA", "{}", std::nullopt, done); })),
              SessionErrorCode::kNotFound);
}

TEST_P(SessionStoreTest, EveryLimitIsATypedError) {
    limits_.max_events_per_session = 3;
    limits_.max_event_bytes = 20;
    limits_.max_state_bytes = 16;
    limits_.max_metadata_bytes = 16;
    limits_.max_sessions_per_principal = 2;
    limits_.max_batch_events = 2;
    open_store();
    SessionInfo s = create("alice");
    create("alice");
    auto third = wait<SessionInfo>([&](auto done) { store_->create("alice", {}, done); });
    ASSERT_EQ(code_of(third), SessionErrorCode::kLimit);
    EXPECT_EQ(third.error().limit, "sessions_per_principal");
    EXPECT_EQ(third.error().limit_value, 2u);
    create("bob");  // another principal has a count of its own

    ASSERT_TRUE(append("alice", s.id, {{"user", "1"}, {"user", "2"}}).is_ok());
    auto full = append("alice", s.id, {{"user", "3"}, {"user", "4"}});
    ASSERT_EQ(code_of(full), SessionErrorCode::kLimit);
    EXPECT_EQ(full.error().limit, "events_per_session");
    ASSERT_TRUE(append("alice", s.id, {{"user", "3"}}, "last").is_ok());
    // The retry of an append that filled the session still answers its range.
    auto retry = append("alice", s.id, {{"user", "3"}}, "last");
    ASSERT_TRUE(retry.is_ok());
    EXPECT_EQ(retry.value().first_seq, 3);
    EXPECT_TRUE(retry.value().replayed);

    SessionInfo t = wait<SessionInfo>([&](auto done) { store_->create("bob", {}, done); }).value();
    auto big = append("bob", t.id, {{"user", R"("0123456789abcdefghij")"}});
    ASSERT_EQ(code_of(big), SessionErrorCode::kLimit);
    EXPECT_EQ(big.error().limit, "event_bytes");
    auto batch = append("bob", t.id, {{"a", "1"}, {"b", "2"}, {"c", "3"}});
    ASSERT_EQ(code_of(batch), SessionErrorCode::kLimit);
    EXPECT_EQ(batch.error().limit, "batch_events");
    auto state = wait<StateDocument>(
        [&](auto done) { store_->put_state("bob", t.id, R"({"a":"0123456789"})", std::nullopt, done); });
    ASSERT_EQ(code_of(state), SessionErrorCode::kLimit);
    EXPECT_EQ(state.error().limit, "state_bytes");
    auto patch = wait<StateDocument>(
        [&](auto done) { store_->patch_state("bob", t.id, R"({"a":"0123456789"})", std::nullopt, done); });
    ASSERT_EQ(code_of(patch), SessionErrorCode::kLimit);
    auto meta = wait<SessionInfo>(
        [&](auto done) { store_->create("carol", {.metadata_json = R"({"a":"0123456789"})"}, done); });
    ASSERT_EQ(code_of(meta), SessionErrorCode::kLimit);
    EXPECT_EQ(meta.error().limit, "metadata_bytes");
    auto ttl = wait<SessionInfo>([&](auto done) { store_->create("carol", {.ttl_ms = limits_.max_ttl_ms + 1}, done); });
    EXPECT_EQ(code_of(ttl), SessionErrorCode::kInvalid);
}

TEST_P(SessionStoreTest, ConcurrentCreatesStopExactlyAtThePrincipalsLimit) {
    limits_.max_sessions_per_principal = 3;
    open_store();
    std::vector<std::future<SessionResult<SessionInfo>>> answers;
    for (int i = 0; i < 12; ++i) {
        auto p = std::make_shared<std::promise<SessionResult<SessionInfo>>>();
        answers.push_back(p->get_future());
        store_->create(i % 2 == 0 ? "alice" : "bob", {},
                       [p](SessionResult<SessionInfo> r) { p->set_value(std::move(r)); });
    }
    int created = 0;
    int refused = 0;
    for (auto& f : answers) {
        ASSERT_EQ(f.wait_for(30s), std::future_status::ready);
        SessionResult<SessionInfo> r = f.get();
        if (r.is_ok()) {
            ++created;
        } else {
            EXPECT_EQ(r.error().limit, "sessions_per_principal");
            ++refused;
        }
    }
    EXPECT_EQ(created, 6);
    EXPECT_EQ(refused, 6);
    EXPECT_EQ(count("SELECT COUNT(*) FROM agent_sessions WHERE owner = 'alice'"), 3);
    auto erased = wait<std::int64_t>([&](auto done) { store_->erase_principal("alice", done); });
    ASSERT_TRUE(erased.is_ok());
    EXPECT_EQ(erased.value(), 3);
    EXPECT_EQ(count("SELECT COUNT(*) FROM agent_principals"), 1);
}

TEST_P(SessionStoreTest, ExpiredSessionsAreInvisibleThenSwept) {
    SessionInfo short_lived = create("alice", {.ttl_ms = 1000});
    SessionInfo long_lived = create("alice", {.ttl_ms = 5000});
    ASSERT_TRUE(append("alice", short_lived.id, {{"user", "1"}}, "k").is_ok());
    clock_->advance(900 * 1'000'000LL);
    // A write slides the expiry: the short one now lives until 900 + 1000 ms.
    ASSERT_TRUE(append("alice", short_lived.id, {{"user", "2"}}).is_ok());
    clock_->advance(200 * 1'000'000LL);
    ASSERT_TRUE(wait<SessionInfo>([&](auto done) { store_->get("alice", short_lived.id, done); }).is_ok());
    clock_->advance(1000 * 1'000'000LL);
    EXPECT_EQ(code_of(wait<SessionInfo>([&](auto done) { store_->get("alice", short_lived.id, done); })),
              SessionErrorCode::kNotFound);
    EXPECT_EQ(code_of(events("alice", short_lived.id, 0, 10)), SessionErrorCode::kNotFound);
    EXPECT_EQ(code_of(append("alice", short_lived.id, {{"user", "3"}})), SessionErrorCode::kNotFound);
    auto listed = wait<SessionPage>([&](auto done) { store_->list("alice", "", 10, done); });
    ASSERT_TRUE(listed.is_ok());
    ASSERT_EQ(listed.value().sessions.size(), 1u);
    EXPECT_EQ(listed.value().sessions[0].id, long_lived.id);

    auto swept = wait<std::int64_t>([&](auto done) { store_->sweep(done); });
    ASSERT_TRUE(swept.is_ok());
    EXPECT_EQ(swept.value(), 1);
    EXPECT_EQ(count("SELECT COUNT(*) FROM agent_sessions"), 1);
    EXPECT_EQ(count("SELECT COUNT(*) FROM agent_session_events"), 0);
    EXPECT_EQ(count("SELECT COUNT(*) FROM agent_session_appends"), 0);
}

TEST_P(SessionStoreTest, AnAppendKeepsTheSessionItsTtlAndAtMostAStepLonger) {
    // PostgreSQL moves the expiry in steps of ttl/100 (at most 1 s), so most appends leave it alone (a HOT update);
    // SQLite moves it to now + ttl. Either way: at least the TTL after the last write, at most one step more.
    SessionInfo s = create("alice", {.ttl_ms = 10'000});
    const std::int64_t start = s.created_at_ms;
    for (std::int64_t at : {5'000, 5'010, 5'099, 5'100, 7'000}) {
        clock_->advance((at - (clock_->wall_now() / 1'000'000 - start)) * 1'000'000LL);
        ASSERT_TRUE(append("alice", s.id, {{"user", "1"}}).is_ok());
        auto got = wait<SessionInfo>([&](auto done) { store_->get("alice", s.id, done); });
        ASSERT_TRUE(got.is_ok());
        EXPECT_GE(got.value().expires_at_ms, start + at + 10'000) << at;
        EXPECT_LE(got.value().expires_at_ms, start + at + 10'000 + 100) << at;
    }
}

TEST_P(SessionStoreTest, SweepDeletesInBatchesUntilNoneIsLeft) {
    limits_.max_sessions_per_principal = 2000;
    open_store();
    for (int i = 0; i < 520; ++i)  // two batches
        create("owner" + std::to_string(i % 3), {.ttl_ms = 1000});
    SessionInfo kept = create("owner0", {.ttl_ms = 5000});
    clock_->advance(2000 * 1'000'000LL);
    auto swept = wait<std::int64_t>([&](auto done) { store_->sweep(done); });
    ASSERT_TRUE(swept.is_ok());
    EXPECT_EQ(swept.value(), 520);
    EXPECT_EQ(count("SELECT COUNT(*) FROM agent_sessions"), 1);
    EXPECT_TRUE(wait<SessionInfo>([&](auto done) { store_->get("owner0", kept.id, done); }).is_ok());
}

TEST_P(SessionStoreTest, DeleteAndErasePrincipal) {
    SessionInfo a = create("alice");
    create("alice");
    SessionInfo b = create("bob");
    ASSERT_TRUE(append("alice", a.id, {{"user", "1"}}).is_ok());
    EXPECT_EQ(code_of(wait<Done>([&](auto done) { store_->remove("bob", a.id, done); })), SessionErrorCode::kForbidden);
    ASSERT_TRUE(wait<Done>([&](auto done) { store_->remove("alice", a.id, done); }).is_ok());
    EXPECT_EQ(code_of(wait<Done>([&](auto done) { store_->remove("alice", a.id, done); })),
              SessionErrorCode::kNotFound);
    EXPECT_EQ(count("SELECT COUNT(*) FROM agent_session_events"), 0);
    auto erased = wait<std::int64_t>([&](auto done) { store_->erase_principal("alice", done); });
    ASSERT_TRUE(erased.is_ok());
    EXPECT_EQ(erased.value(), 1);
    EXPECT_EQ(count("SELECT COUNT(*) FROM agent_sessions"), 1);
    EXPECT_TRUE(wait<SessionInfo>([&](auto done) { store_->get("bob", b.id, done); }).is_ok());
}

TEST_P(SessionStoreTest, AppendsAndDeletesWakeFollowersHereAndOnOtherStores) {
    SessionInfo a = create("alice");
    std::atomic<int> woken{0};
    const std::uint64_t token = store_->changes().subscribe(a.id, [&] { woken.fetch_add(1); });
    ASSERT_TRUE(append("alice", a.id, {{"user", "1"}}, "k").is_ok());
    EXPECT_EQ(woken.load(), 1);  // before the writer's answer
    ASSERT_TRUE(append("alice", a.id, {{"user", "1"}}, "k").is_ok());
    EXPECT_EQ(woken.load(), 1);  // a replayed append changed nothing
    EXPECT_EQ(code_of(append("bob", a.id, {{"user", "2"}})), SessionErrorCode::kForbidden);
    EXPECT_EQ(woken.load(), 1);
    auto wait_for = [&](int n) {
        for (int i = 0; i < 500 && woken.load() < n; ++i)
            std::this_thread::sleep_for(10ms);
        return woken.load();
    };
    if (GetParam() == Kind::kPostgres) {
        // Another store on the same database (another replica): its append reaches this one by NOTIFY.
        auto other_db = store::Database::open({.url = url_});
        ASSERT_TRUE(other_db.is_ok());
        std::shared_ptr<store::Database> db2(std::move(other_db).value());
        auto opened = SessionStore::open(db2, {.limits = limits_, .clock = clock_});
        ASSERT_TRUE(opened.is_ok()) << opened.status().to_string();
        std::shared_ptr<SessionStore> other = std::move(opened).value();
        // Appends NOTIFY while a follower is counted in the session's row (follow_started: a Follower's start).
        std::promise<void> counted;
        store_->follow_started("alice", a.id, [&counted] { counted.set_value(); });
        ASSERT_EQ(counted.get_future().wait_for(10s), std::future_status::ready);
        EXPECT_EQ(count("SELECT followers FROM agent_sessions WHERE id = '" + a.id + "'"), 1);
        ASSERT_TRUE(wait<AppendResult>([&](auto done) {
                        other->append("alice", a.id, {{"user", "3"}}, "", done);
                    }).is_ok());
        EXPECT_EQ(wait_for(2), 2);
        store_->follow_ended("alice", a.id);
        const std::string followers = "SELECT followers FROM agent_sessions WHERE id = '" + a.id + "'";
        for (int i = 0; i < 500 && count(followers) != 0; ++i)
            std::this_thread::sleep_for(10ms);
        EXPECT_EQ(count(followers), 0);
        for (int i = 0; i < 500 && other.use_count() > 1; ++i)
            std::this_thread::sleep_for(10ms);
        other.reset();
    } else {
        woken.fetch_add(1);
    }
    ASSERT_TRUE(wait<Done>([&](auto done) { store_->remove("alice", a.id, done); }).is_ok());
    EXPECT_EQ(woken.load(), 3);
    create("alice");
    ASSERT_TRUE(wait<std::int64_t>([&](auto done) { store_->erase_principal("alice", done); }).is_ok());
    EXPECT_EQ(woken.load(), 4);  // an erase wakes every follower
    store_->changes().unsubscribe(a.id, token);
    EXPECT_EQ(store_->changes().followers(), 0U);
}

TEST(SessionChangesTest, AWakeMayUnsubscribeItselfAndPublishAllReachesEveryone) {
    SessionChanges changes;
    int x = 0;
    int y = 0;
    std::uint64_t tx = 0;
    tx = changes.subscribe("x", [&] {
        ++x;
        changes.unsubscribe("x", tx);
    });
    changes.subscribe("y", [&] { ++y; });
    changes.publish("x");
    changes.publish("x");
    changes.publish("z");
    EXPECT_EQ(x, 1);
    EXPECT_EQ(changes.followers(), 1U);
    changes.publish_all();
    EXPECT_EQ(y, 1);
    changes.clear();
    changes.publish_all();
    EXPECT_EQ(y, 1);
}

TEST_P(SessionStoreTest, ReopenedStoreKeepsEverythingAndMigratesOnce) {
    SessionInfo s = create("alice", {.state_json = R"({"n":1})"});
    ASSERT_TRUE(append("alice", s.id, {{"user", "1"}, {"user", "2"}}, "k").is_ok());
    open_store();
    open_store();
    EXPECT_EQ(count("SELECT COUNT(*) FROM agent_schema_version"), kSessionSchemaVersion);
    auto page = events("alice", s.id, 0, 10);
    ASSERT_TRUE(page.is_ok());
    EXPECT_EQ(page.value().events.size(), 2u);
    auto retry = append("alice", s.id, {{"user", "1"}, {"user", "2"}}, "k");
    ASSERT_TRUE(retry.is_ok());
    EXPECT_TRUE(retry.value().replayed);
    auto state = wait<StateDocument>([&](auto done) { store_->get_state("alice", s.id, done); });
    ASSERT_TRUE(state.is_ok());
    EXPECT_EQ(state.value().state_json, R"({"n":1})");
    if (GetParam() == Kind::kSqlite) {
        // Durable: a commit is on disk before it is answered.
        EXPECT_EQ(count("PRAGMA synchronous"), 2);  // FULL
    }
}

TEST_P(SessionStoreTest, ANewerSchemaIsRefused) {
    ASSERT_TRUE(run(*db_, "INSERT INTO agent_schema_version (version, applied_at) VALUES (99, 0)").is_ok());
    auto s = SessionStore::open(db_, {});
    ASSERT_FALSE(s.is_ok());
    EXPECT_TRUE(s.status().is_invalid_argument());
    EXPECT_EQ(s.status().message(), "the database's session schema is version 99, newer than this server's " +
                                        std::to_string(kSessionSchemaVersion));
}

INSTANTIATE_TEST_SUITE_P(Backends, SessionStoreTest, ::testing::Values(Kind::kSqlite, Kind::kPostgres),
                         [](const ::testing::TestParamInfo<Kind>& info) {
                             return info.param == Kind::kSqlite ? "Sqlite" : "Postgres";
                         });

}  // namespace
}  // namespace slipstream::agent::sessions
