// SessionStore on SQLite (a temporary file): migrations, every operation, the per-principal limit, expiry.
#include "agent/mcp/session_store.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <future>
#include <utility>

#include "store/database/database.h"

namespace slipstream::mcp::detail {
namespace {

using namespace std::chrono_literals;
using Outcome = SessionStore::Outcome;

store::QueryResult run(store::Database& db, std::string sql) {
    std::promise<store::QueryResult> p;
    (void)db.query(std::move(sql), {}, [&p](store::QueryResult r) { p.set_value(std::move(r)); });
    return p.get_future().get();
}

template <typename Start>
Outcome wait(Start start) {
    auto p = std::make_shared<std::promise<Outcome>>();
    auto f = p->get_future();
    start([p](Outcome o) { p->set_value(o); });
    EXPECT_EQ(f.wait_for(30s), std::future_status::ready);
    return f.get();
}

std::pair<Outcome, std::optional<SessionRecord>> load(SessionStore& s, const std::string& id) {
    auto p = std::make_shared<std::promise<std::pair<Outcome, std::optional<SessionRecord>>>>();
    auto f = p->get_future();
    s.load(id, [p](Outcome o, std::optional<SessionRecord> r) { p->set_value({o, std::move(r)}); });
    EXPECT_EQ(f.wait_for(30s), std::future_status::ready);
    return f.get();
}

SessionRecord record(std::string id, std::string principal) {
    SessionRecord r;
    r.id = std::move(id);
    r.principal = std::move(principal);
    r.version = "2025-06-18";
    r.capabilities = R"({"elicitation":{}})";
    return r;
}

class McpSessionStoreTest : public ::testing::Test {
  protected:
    void SetUp() override {
        static std::atomic<int> counter{0};
        path_ = std::filesystem::temp_directory_path() /
                ("ss-mcp-sessions-" + std::to_string(::getpid()) + "-" + std::to_string(counter++) + ".db");
        options_.url = "sqlite://" + path_.string();
        options_.max_per_principal = 2;
        auto opened = SessionStore::open(options_);
        ASSERT_TRUE(opened.is_ok()) << opened.status().to_string();
        store_ = std::move(opened).value();
    }
    void TearDown() override {
        store_.reset();
        std::error_code ec;
        for (const char* suffix : {"", "-wal", "-shm"})
            std::filesystem::remove(path_.string() + suffix, ec);
    }
    // A second handle on the file, to change rows behind the store's back.
    std::unique_ptr<store::Database> raw() {
        auto db = store::Database::open({.url = options_.url});
        EXPECT_TRUE(db.is_ok());
        return std::move(db).value();
    }

    std::filesystem::path path_;
    SessionStore::Options options_;
    std::shared_ptr<SessionStore> store_;
};

TEST(McpSessionRecords, SubscriptionsRoundTrip) {
    const std::vector<std::string> uris = {"file:///a \"b\"", "info://server", "x://\\u"};
    EXPECT_EQ(parse_subscriptions(subscriptions_json(uris)), uris);
    EXPECT_EQ(subscriptions_json({}), "[]");
    EXPECT_FALSE(parse_subscriptions("[1]"));
    EXPECT_FALSE(parse_subscriptions("{}"));
    EXPECT_FALSE(parse_subscriptions("[\"a\""));
}

TEST_F(McpSessionStoreTest, InsertLoadUpdateRemove) {
    SessionRecord r = record("s1", "alice");
    r.subscriptions = {"info://server"};
    ASSERT_EQ(wait([&](auto done) { store_->insert(r, done); }), Outcome::kOk);
    auto [found, got] = load(*store_, "s1");
    ASSERT_EQ(found, Outcome::kOk);
    ASSERT_TRUE(got);
    EXPECT_EQ(got->principal, "alice");
    EXPECT_EQ(got->version, "2025-06-18");
    EXPECT_EQ(got->capabilities, R"({"elicitation":{}})");
    EXPECT_EQ(got->log_level, LogLevel::kInfo);
    EXPECT_EQ(got->subscriptions, std::vector<std::string>{"info://server"});
    EXPECT_GT(got->created_ms, 0);
    EXPECT_EQ(got->created_ms, got->last_seen_ms);

    r.log_level = LogLevel::kError;
    r.subscriptions = {"a://1", "b://2"};
    ASSERT_EQ(wait([&](auto done) { store_->update(r, done); }), Outcome::kOk);
    got = load(*store_, "s1").second;
    ASSERT_TRUE(got);
    EXPECT_EQ(got->log_level, LogLevel::kError);
    EXPECT_EQ(got->subscriptions, (std::vector<std::string>{"a://1", "b://2"}));

    EXPECT_EQ(load(*store_, "nope").first, Outcome::kNotFound);
    EXPECT_EQ(wait([&](auto done) { store_->update(record("nope", "alice"), done); }), Outcome::kNotFound);
    // Only its principal removes it.
    EXPECT_EQ(wait([&](auto done) { store_->remove("s1", "bob", done); }), Outcome::kNotFound);
    EXPECT_EQ(wait([&](auto done) { store_->remove("s1", "alice", done); }), Outcome::kOk);
    EXPECT_EQ(load(*store_, "s1").first, Outcome::kNotFound);
    EXPECT_EQ(wait([&](auto done) { store_->remove("s1", "alice", done); }), Outcome::kNotFound);
}

TEST_F(McpSessionStoreTest, DuplicateIdIsRefused) {
    ASSERT_EQ(wait([&](auto done) { store_->insert(record("dup", "alice"), done); }), Outcome::kOk);
    EXPECT_EQ(wait([&](auto done) { store_->insert(record("dup", "bob"), done); }), Outcome::kUnavailable);
    EXPECT_EQ(load(*store_, "dup").second->principal, "alice");
}

TEST_F(McpSessionStoreTest, SessionsPerPrincipalAcrossProcesses) {
    ASSERT_EQ(wait([&](auto done) { store_->insert(record("a1", "alice"), done); }), Outcome::kOk);
    // Another process's store on the same file counts the same rows.
    auto other = SessionStore::open(options_);
    ASSERT_TRUE(other.is_ok());
    ASSERT_EQ(wait([&](auto done) { (*other)->insert(record("a2", "alice"), done); }), Outcome::kOk);
    EXPECT_EQ(wait([&](auto done) { store_->insert(record("a3", "alice"), done); }), Outcome::kPrincipalFull);
    EXPECT_EQ(wait([&](auto done) { store_->insert(record("b1", "bob"), done); }), Outcome::kOk);
    EXPECT_EQ((load(**other, "a1").first), Outcome::kOk);
    // An expired session does not count.
    auto db = raw();
    ASSERT_TRUE(run(*db, "UPDATE mcp_sessions SET last_seen = 1 WHERE id = 'a1'").is_ok());
    EXPECT_EQ(wait([&](auto done) { store_->insert(record("a3", "alice"), done); }), Outcome::kOk);
}

TEST_F(McpSessionStoreTest, ExpiredSessionsAreInvisibleAndSwept) {
    for (const char* id : {"e1", "e2", "live"})
        ASSERT_EQ(wait([&](auto done) { store_->insert(record(id, id), done); }), Outcome::kOk);
    auto db = raw();
    ASSERT_TRUE(run(*db, "UPDATE mcp_sessions SET last_seen = 1 WHERE id IN ('e1', 'e2')").is_ok());
    EXPECT_EQ(load(*store_, "e1").first, Outcome::kNotFound);
    EXPECT_EQ(wait([&](auto done) { store_->update(record("e1", "e1"), done); }), Outcome::kNotFound);
    EXPECT_EQ(wait([&](auto done) { store_->remove("e1", "e1", done); }), Outcome::kNotFound);

    auto p = std::make_shared<std::promise<std::int64_t>>();
    store_->sweep(1, [p](std::int64_t n) { p->set_value(n); });
    EXPECT_EQ(p->get_future().get(), 1);  // the batch bounds a sweep
    auto q = std::make_shared<std::promise<std::int64_t>>();
    store_->sweep(500, [q](std::int64_t n) { q->set_value(n); });
    EXPECT_EQ(q->get_future().get(), 1);
    auto rows = run(*db, "SELECT id FROM mcp_sessions ORDER BY id");
    ASSERT_TRUE(rows.is_ok());
    ASSERT_EQ(rows->row_count(), 1u);
    EXPECT_EQ(rows->text(0, 0), "live");

    // touch moves last_seen on; remove_if_idle leaves a live session alone.
    ASSERT_TRUE(run(*db, "UPDATE mcp_sessions SET last_seen = 5 WHERE id = 'live'").is_ok());
    auto waited = [](auto start) {
        auto p = std::make_shared<std::promise<void>>();
        start([p] { p->set_value(); });
        return p->get_future().wait_for(30s) == std::future_status::ready;
    };
    ASSERT_TRUE(waited([&](auto done) { store_->touch("live", done); }));
    EXPECT_EQ(load(*store_, "live").first, Outcome::kOk);
    ASSERT_TRUE(waited([&](auto done) { store_->remove_if_idle("live", done); }));
    EXPECT_EQ(load(*store_, "live").first, Outcome::kOk);
    // One idle in the store too goes.
    ASSERT_TRUE(run(*db, "UPDATE mcp_sessions SET last_seen = 5 WHERE id = 'live'").is_ok());
    ASSERT_TRUE(waited([&](auto done) { store_->remove_if_idle("live", done); }));
    EXPECT_EQ(run(*db, "SELECT id FROM mcp_sessions")->row_count(), 0u);
}

TEST_F(McpSessionStoreTest, UnreadableRowIsNoSession) {
    ASSERT_EQ(wait([&](auto done) { store_->insert(record("bad", "alice"), done); }), Outcome::kOk);
    auto db = raw();
    ASSERT_TRUE(run(*db, "UPDATE mcp_sessions SET subscriptions = 'not json' WHERE id = 'bad'").is_ok());
    EXPECT_EQ(load(*store_, "bad").first, Outcome::kNotFound);
}

TEST_F(McpSessionStoreTest, MigrationsAreIdempotentAndANewerSchemaIsRefused) {
    auto again = SessionStore::open(options_);
    ASSERT_TRUE(again.is_ok()) << again.status().to_string();
    auto db = raw();
    auto versions = run(*db, "SELECT MAX(version) FROM mcp_schema_version");
    ASSERT_TRUE(versions.is_ok());
    EXPECT_EQ(versions->text(0, 0), "3");
    ASSERT_TRUE(run(*db, "INSERT INTO mcp_schema_version (version, applied_at) VALUES (7, 0)").is_ok());
    auto newer = SessionStore::open(options_);
    ASSERT_FALSE(newer.is_ok());
    EXPECT_TRUE(newer.status().is_invalid_argument());
    EXPECT_EQ(newer.status().message(), "the database's MCP session schema is version 7, newer than this server's 3");
}

TEST(McpSessionStoreOpen, BadUrlsFail) {
    SessionStore::Options o;
    o.url = "mysql://nowhere";
    EXPECT_FALSE(SessionStore::open(o).is_ok());
    o.url = "sqlite:///nonexistent-dir-for-mcp/x/y.db";
    EXPECT_FALSE(SessionStore::open(o).is_ok());
    o.url = "sqlite://:memory:";  // one connection: no transactions beside it
    EXPECT_FALSE(SessionStore::open(o).is_ok());
}

}  // namespace
}  // namespace slipstream::mcp::detail
