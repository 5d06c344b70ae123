// SinkLink: a protocol's hold on an asynchronous answer routes the Responder's answers to its sink while it lives.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "base/clock.h"
#include "net/event_loop.h"
#include "server/conn/pending_response.h"
#include "slipstream/responder.h"

namespace slipstream::server {
namespace {

using slipstream::detail::LoopRef;
using slipstream::detail::PendingResponse;

// Records what reached it, in order.
class RecordingSink final : public ResponseSink {
  public:
    void deliver_response(PendingResponse&, Response&& response) override {
        events.push_back("response " + std::to_string(response.status));
    }
    void deliver_stream_head(PendingResponse&, Response&& head) override {
        events.push_back("head " + std::to_string(head.status));
    }
    void deliver_stream_chunk(PendingResponse&, std::string&& chunk) override { events.push_back("chunk " + chunk); }
    void deliver_stream_end(PendingResponse&, bool aborted) override {
        events.push_back(aborted ? "end aborted" : "end");
    }

    std::vector<std::string> events;
};

class SinkLinkTest : public ::testing::Test {
  protected:
    SinkLinkTest() : loop_(clock_), pending_(std::make_shared<PendingResponse>()) {
        loop_.attach_to_current_thread();
        pending_->loop = std::make_shared<LoopRef>(&loop_);
    }

    base::ManualClock clock_;
    net::EventLoop loop_;
    std::shared_ptr<PendingResponse> pending_;
    RecordingSink sink_;
};

TEST_F(SinkLinkTest, RoutesToTheSinkOnlyWhileItLives) {
    EXPECT_EQ(pending_->sink(), nullptr);
    {
        SinkLink link(pending_, sink_);
        EXPECT_EQ(pending_->sink(), &sink_);
        EXPECT_EQ(link.get(), pending_.get());
        EXPECT_EQ(pending_.use_count(), 2);
    }
    EXPECT_EQ(pending_->sink(), nullptr);
    EXPECT_EQ(pending_.use_count(), 1);
    EXPECT_FALSE(pending_->cancelled.load());
}

TEST_F(SinkLinkTest, AMoveKeepsTheRouteAndAnAssignmentCutsTheOldOne) {
    SinkLink a(pending_, sink_);
    SinkLink b(std::move(a));
    EXPECT_FALSE(a);
    EXPECT_EQ(pending_->sink(), &sink_);

    auto other = std::make_shared<PendingResponse>();
    other->loop = pending_->loop;
    RecordingSink other_sink;
    b = SinkLink(other, other_sink);
    EXPECT_EQ(pending_->sink(), nullptr);
    EXPECT_EQ(other->sink(), &other_sink);
    b.reset();
    EXPECT_FALSE(b);
    EXPECT_EQ(other->sink(), nullptr);
}

TEST_F(SinkLinkTest, DroppingTheLinkStopsTheHandlerTimer) {
    int fired = 0;
    pending_->handler_timer.set_callback([&fired] { ++fired; });
    SinkLink link(pending_, sink_);
    loop_.schedule_after(pending_->handler_timer, 1'000'000);
    ASSERT_TRUE(pending_->handler_timer.scheduled());
    link.reset();
    EXPECT_FALSE(pending_->handler_timer.scheduled());
    clock_.advance(10'000'000);
    loop_.run_once(0);
    EXPECT_EQ(fired, 0);
}

TEST_F(SinkLinkTest, CancelCutsTheRouteAndTellsTheProducer) {
    int told = 0;
    pending_->stream.on_cancel([&told] { ++told; });
    SinkLink link(pending_, sink_);
    loop_.schedule_after(pending_->handler_timer, 1'000'000);
    link.cancel();
    EXPECT_FALSE(link);
    EXPECT_EQ(pending_->sink(), nullptr);
    EXPECT_TRUE(pending_->cancelled.load());
    EXPECT_FALSE(pending_->handler_timer.scheduled());
    EXPECT_EQ(told, 0);  // posted: never inside the protocol's close
    loop_.run_once(0);
    EXPECT_EQ(told, 1);
}

TEST_F(SinkLinkTest, ResponderAnswersReachTheLinkedSink) {
    SinkLink link(pending_, sink_);
    Responder responder(pending_);
    ASSERT_TRUE(responder.start_stream(Response(200)));
    ASSERT_TRUE(responder.write("a"));
    ASSERT_TRUE(responder.end());
    loop_.run_once(0);
    EXPECT_EQ(sink_.events, (std::vector<std::string>{"head 200", "chunk a", "end"}));
}

TEST_F(SinkLinkTest, AnswersAfterTheLinkIsGoneAreDropped) {
    auto link = std::make_unique<SinkLink>(pending_, sink_);
    Responder responder(pending_);
    ASSERT_TRUE(responder.send(Response(204)));  // posted while linked
    link.reset();                                // delivered after the protocol let go
    loop_.run_once(0);
    EXPECT_TRUE(sink_.events.empty());
}

// Responder::send_all: each loop gets one posted task with its answers, in order.
TEST_F(SinkLinkTest, SendAllPostsOneTaskPerLoopWithItsAnswersInOrder) {
    net::EventLoop other(clock_);
    other.attach_to_current_thread();
    auto other_ref = std::make_shared<LoopRef>(&other);
    std::vector<std::shared_ptr<PendingResponse>> pendings;
    std::vector<SinkLink> links;
    auto answer = [&](const std::shared_ptr<LoopRef>& loop) {
        auto p = pendings.emplace_back(std::make_shared<PendingResponse>());
        p->loop = loop;
        links.emplace_back(p, sink_);
        return Responder(p);
    };
    std::vector<std::pair<Responder, Response>> batch;
    batch.emplace_back(answer(pending_->loop), Response(201));
    batch.emplace_back(answer(other_ref), Response(202));
    batch.emplace_back(answer(pending_->loop), Response(203));
    Responder::send_all(batch);
    EXPECT_TRUE(batch.empty());
    EXPECT_EQ(loop_.run_once(0), 1u);  // one task for both answers of this loop
    EXPECT_EQ(sink_.events, (std::vector<std::string>{"response 201", "response 203"}));
    EXPECT_EQ(other.run_once(0), 1u);
    EXPECT_EQ(sink_.events, (std::vector<std::string>{"response 201", "response 203", "response 202"}));
}

TEST_F(SinkLinkTest, SendAllDropsAnswersAlreadyGivenAndThoseWhoseClientLeft) {
    SinkLink link(pending_, sink_);
    Responder first(pending_);
    ASSERT_TRUE(first.send(Response(200)));
    auto gone = std::make_shared<PendingResponse>();
    gone->loop = pending_->loop;
    gone->cancelled.store(true);
    SinkLink gone_link(gone, sink_);
    std::vector<std::pair<Responder, Response>> batch;
    batch.emplace_back(Responder(pending_), Response(500));
    batch.emplace_back(Responder(gone), Response(501));
    Responder::send_all(batch);
    EXPECT_EQ(loop_.run_once(0), 1u);  // send()'s task only
    EXPECT_EQ(sink_.events, (std::vector<std::string>{"response 200"}));
    EXPECT_TRUE(gone->ended.load());
}

}  // namespace
}  // namespace slipstream::server
