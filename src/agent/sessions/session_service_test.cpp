// SessionService (slipstream/sessions.h) on a SQLite file: each operation answers as the HTTP routes do.
#include "slipstream/sessions.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <future>
#include <stdexcept>
#include <string>

namespace slipstream {
namespace {

using namespace std::chrono_literals;

class SessionServiceTest : public ::testing::Test {
  protected:
    void SetUp() override {
        path_ = std::filesystem::temp_directory_path() / ("ss-service-" + std::to_string(::getpid()) + ".db");
        std::filesystem::remove(path_);
        service_ = std::make_unique<SessionService>(SessionsOptions{.store_url = "sqlite://" + path_.string()});
    }
    void TearDown() override {
        service_.reset();
        for (const char* suffix : {"", "-wal", "-shm"})
            std::filesystem::remove(path_.string() + suffix);
    }
    template <typename Start>
    SessionReply wait(Start start) {
        auto p = std::make_shared<std::promise<SessionReply>>();
        start([p](SessionReply r) { p->set_value(std::move(r)); });
        std::future<SessionReply> f = p->get_future();
        EXPECT_EQ(f.wait_for(10s), std::future_status::ready);
        return f.get();
    }
    std::string create(const std::string& principal) {
        SessionReply r = wait([&](auto done) { service_->create(principal, "", R"({"step":1})", 0, done); });
        EXPECT_EQ(r.status, 201) << r.body;
        const std::size_t at = r.body.find(R"("id":")") + 6;
        return r.body.substr(at, r.body.find('"', at) - at);
    }

    std::filesystem::path path_;
    std::unique_ptr<SessionService> service_;
};

TEST_F(SessionServiceTest, AppendEventsAndStateAnswerAsTheRoutes) {
    const std::string id = create("alice");
    SessionReply added = wait([&](auto done) {
        service_->append("alice", id, {{"user", R"({"text":"hi"})"}, {"tool", "[1,2]"}}, "k1", done);
    });
    EXPECT_EQ(added.status, 201);
    EXPECT_EQ(added.body, R"({"first_seq":1,"last_seq":2,"replayed":false})");
    SessionReply again = wait([&](auto done) { service_->append("alice", id, {{"user", "1"}}, "k1", done); });
    EXPECT_EQ(again.status, 200);
    EXPECT_EQ(again.body, R"({"first_seq":1,"last_seq":2,"replayed":true})");

    SessionReply page = wait([&](auto done) { service_->events("alice", id, 1, 10, done); });
    EXPECT_EQ(page.status, 200);
    EXPECT_NE(page.body.find(R"("seq":2,"role":"tool","content":[1,2])"), std::string::npos) << page.body;
    EXPECT_EQ(page.body.find(R"("seq":1,)"), std::string::npos) << page.body;

    SessionReply state = wait([&](auto done) { service_->state("alice", id, done); });
    EXPECT_EQ(state.status, 200);
    EXPECT_EQ(state.body, R"({"step":1})");
    EXPECT_EQ(state.version, 1);
    SessionReply put = wait([&](auto done) { service_->update_state("alice", id, R"({"step":2})", 1, done); });
    EXPECT_EQ(put.status, 200);
    EXPECT_EQ(put.version, 2);
    SessionReply stale = wait([&](auto done) { service_->update_state("alice", id, R"({"step":3})", 1, done); });
    EXPECT_EQ(stale.status, 409);
    EXPECT_EQ(stale.version, 2);
    EXPECT_NE(stale.body.find(R"("current_version":2)"), std::string::npos) << stale.body;
    SessionReply patched =
        wait([&](auto done) { service_->patch_state("alice", id, R"({"more":true})", std::nullopt, done); });
    EXPECT_EQ(patched.body, R"({"step":2,"more":true})");
    EXPECT_EQ(patched.version, 3);
}

TEST_F(SessionServiceTest, RefusalsCarryTheRoutesStatuses) {
    const std::string id = create("alice");
    EXPECT_EQ(wait([&](auto done) { service_->state("bob", id, done); }).status, 403);
    EXPECT_EQ(wait([&](auto done) { service_->state("alice", "AAAAAAAAAAAAAAAAAAAAAA", done); }).status, 404);
    EXPECT_EQ(wait([&](auto done) { service_->append("alice", id, {{"user", "{nope"}}, "", done); }).status, 422);
    const std::string big(70 * 1024, 'x');
    EXPECT_EQ(wait([&](auto done) {
                  service_->append("alice", id, {{"user", "\"" + big + "\""}}, "", done);
              }).status,
              413);
    service_->close();
    SessionReply closed = wait([&](auto done) { service_->state("alice", id, done); });
    EXPECT_EQ(closed.status, 503);
}

TEST(SessionServiceOptions, BadOptionsAndStoresThrow) {
    EXPECT_THROW(SessionService(SessionsOptions{}), std::invalid_argument);
    EXPECT_THROW(SessionService(SessionsOptions{.store_url = "sqlite:///tmp/x.db", .flush_ms = 0}),
                 std::invalid_argument);
    EXPECT_THROW(SessionService(SessionsOptions{.store_url = "sqlite:///no/such/folder/x.db"}), std::runtime_error);
}

}  // namespace
}  // namespace slipstream
