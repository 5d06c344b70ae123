// The events of resumable streams in the session store (SQLite, a temporary file): StreamRecorder's ordered and
// bounded writes, reads by session and stream, the end markers, the TTL sweep and a session's removal.
#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <future>
#include <thread>
#include <utility>

#include "agent/mcp/session_store.h"
#include "agent/mcp/stream_recorder.h"
#include "store/database/database.h"

namespace slipstream::mcp::detail {
namespace {

using namespace std::chrono_literals;
using Outcome = SessionStore::Outcome;
using Events = std::vector<SessionStore::StoredEvent>;

class McpStreamStoreTest : public ::testing::Test {
  protected:
    void SetUp() override {
        static std::atomic<int> counter{0};
        path_ = std::filesystem::temp_directory_path() /
                ("ss-mcp-events-" + std::to_string(::getpid()) + "-" + std::to_string(counter++) + ".db");
        SessionStore::Options options;
        options.url = "sqlite://" + path_.string();
        options.event_ttl_ms = 60'000;
        auto opened = SessionStore::open(options);
        ASSERT_TRUE(opened.is_ok()) << opened.status().to_string();
        store_ = std::move(opened).value();
        SessionRecord r;
        r.id = "s1";
        r.principal = "alice";
        r.version = "2025-11-25";
        std::promise<Outcome> p;
        store_->insert(r, [&p](Outcome o) { p.set_value(o); });
        ASSERT_EQ(p.get_future().get(), Outcome::kOk);
    }
    void TearDown() override {
        store_.reset();
        std::error_code ec;
        for (const char* suffix : {"", "-wal", "-shm"})
            std::filesystem::remove(path_.string() + suffix, ec);
    }
    Events read(const std::string& session, const std::string& stream, std::uint64_t from = 0) {
        std::promise<Events> p;
        store_->read_events(session, stream, from, 100, [&p](Outcome o, Events e) {
            EXPECT_EQ(o, Outcome::kOk);
            p.set_value(std::move(e));
        });
        return p.get_future().get();
    }
    // Reads until the stream's final event is stored (the recorder writes in the background).
    Events read_final(const std::string& stream) {
        for (int i = 0; i < 3000; ++i) {
            Events e = read("s1", stream);
            if (!e.empty() && e.back().final) return e;
            std::this_thread::sleep_for(10ms);
        }
        ADD_FAILURE() << "no final event";
        return {};
    }
    bool known(const std::string& session, const std::string& stream) {
        std::promise<bool> p;
        store_->stream_known(session, stream, [&p](Outcome, bool k, std::int64_t) { p.set_value(k); });
        return p.get_future().get();
    }

    std::filesystem::path path_;
    std::shared_ptr<SessionStore> store_;
};

TEST_F(McpStreamStoreTest, RecordedEventsAreReadInOrderWithTheFinalOneLast) {
    auto recorder = std::make_shared<StreamRecorder>(store_, "s1", "p.1", StreamRecorder::Limits{});
    recorder->record(0, "", false);  // a priming event
    for (std::uint64_t n = 1; n <= 20; ++n)
        recorder->record(n, "{\"n\":" + std::to_string(n) + "}", n == 20);
    recorder.reset();  // the writes in flight finish without it
    Events events = read_final("p.1");
    ASSERT_EQ(events.size(), 21u);
    for (std::uint64_t n = 0; n <= 20; ++n)
        EXPECT_EQ(events[n].seq, n);
    EXPECT_EQ(events[5].data, "{\"n\":5}");
    EXPECT_TRUE(events[20].final);
    EXPECT_FALSE(events[19].final);
    EXPECT_EQ(read("s1", "p.1", 18).size(), 3u);
    EXPECT_TRUE(known("s1", "p.1"));
    EXPECT_FALSE(known("s1", "p.2"));  // another stream
    EXPECT_FALSE(known("s2", "p.1"));  // the same stream id in another session
}

TEST_F(McpStreamStoreTest, TheOldestEventsGoBeyondTheCountAndByteLimits) {
    auto by_count = std::make_shared<StreamRecorder>(store_, "s1", "c", StreamRecorder::Limits{3, 1 << 20});
    for (std::uint64_t n = 1; n <= 10; ++n)
        by_count->record(n, "xxxx", n == 10);
    Events kept = read_final("c");
    ASSERT_EQ(kept.size(), 3u);
    EXPECT_EQ(kept.front().seq, 8u);

    auto by_bytes = std::make_shared<StreamRecorder>(store_, "s1", "b", StreamRecorder::Limits{100, 10});
    for (std::uint64_t n = 1; n <= 6; ++n)
        by_bytes->record(n, "abcd", n == 6);  // 4 bytes each: two fit in 10
    kept = read_final("b");
    ASSERT_EQ(kept.size(), 2u);
    EXPECT_EQ(kept.front().seq, 5u);
}

TEST_F(McpStreamStoreTest, AnAnswerTooLargeToKeepLeavesAnEmptyFinalMarker) {
    auto recorder = std::make_shared<StreamRecorder>(store_, "s1", "big", StreamRecorder::Limits{100, 8});
    recorder->record(1, "small", false);
    recorder->record(2, std::string(64, 'x'), true);
    Events events = read_final("big");
    ASSERT_EQ(events.size(), 2u);
    EXPECT_EQ(events[1].seq, 2u);
    EXPECT_TRUE(events[1].data.empty());
}

TEST_F(McpStreamStoreTest, RemovingTheSessionDeletesItsEvents) {
    auto recorder = std::make_shared<StreamRecorder>(store_, "s1", "r", StreamRecorder::Limits{});
    recorder->record(1, "{}", true);
    read_final("r");
    std::promise<Outcome> p;
    store_->remove("s1", "mallory", [&p](Outcome o) { p.set_value(o); });
    EXPECT_EQ(p.get_future().get(), Outcome::kNotFound);
    EXPECT_TRUE(known("s1", "r"));  // another principal's DELETE removed nothing
    std::promise<Outcome> q;
    store_->remove("s1", "alice", [&q](Outcome o) { q.set_value(o); });
    EXPECT_EQ(q.get_future().get(), Outcome::kOk);
    for (int i = 0; i < 3000 && known("s1", "r"); ++i)
        std::this_thread::sleep_for(10ms);
    EXPECT_FALSE(known("s1", "r"));
}

TEST_F(McpStreamStoreTest, TheSweepDeletesEventsPastTheirTtl) {
    SessionStore::StoredEvent e;
    e.seq = 1;
    e.data = "{}";
    std::promise<Outcome> p;
    store_->append_events("s1", "old", {e}, 0, [&p](Outcome o) { p.set_value(o); });
    ASSERT_EQ(p.get_future().get(), Outcome::kOk);
    // Aged past the TTL behind the store's back.
    auto db = store::Database::open({.url = "sqlite://" + path_.string()});
    ASSERT_TRUE(db.is_ok());
    std::promise<store::QueryResult> aged;
    (void)(*db)->query("UPDATE mcp_events SET created_at = 0", {},
                       [&aged](store::QueryResult r) { aged.set_value(std::move(r)); });
    ASSERT_TRUE(aged.get_future().get().is_ok());
    std::promise<std::int64_t> swept;
    store_->sweep(10, [&swept](std::int64_t n) { swept.set_value(n); });
    swept.get_future().get();
    for (int i = 0; i < 3000 && known("s1", "old"); ++i)
        std::this_thread::sleep_for(10ms);
    EXPECT_FALSE(known("s1", "old"));
}

}  // namespace
}  // namespace slipstream::mcp::detail
