// HandlerCount: the cap, tickets that leave when they die (moved, reassigned, outliving the count's owner),
// and concurrent entries from several threads.
#include "server/core/handler_count.h"

#include <gtest/gtest.h>

#include <thread>
#include <vector>

namespace slipstream::server {
namespace {

TEST(HandlerCount, TicketsPastTheCapAreEmpty) {
    auto count = std::make_shared<HandlerCount>(2);
    HandlerCount::Ticket a = HandlerCount::try_enter(count);
    HandlerCount::Ticket b = HandlerCount::try_enter(count);
    HandlerCount::Ticket c = HandlerCount::try_enter(count);
    EXPECT_TRUE(a);
    EXPECT_TRUE(b);
    EXPECT_FALSE(c);
    EXPECT_EQ(count->running(), 2u);
    a = HandlerCount::Ticket();  // reassigned: leaves
    EXPECT_EQ(count->running(), 1u);
    HandlerCount::Ticket d = HandlerCount::try_enter(count);
    EXPECT_TRUE(d);
    EXPECT_EQ(count->running(), 2u);
    // enter() counts whatever the cap.
    HandlerCount::Ticket e = HandlerCount::enter(count);
    EXPECT_EQ(count->running(), 3u);
}

TEST(HandlerCount, AMovedTicketLeavesOnce) {
    auto count = std::make_shared<HandlerCount>();
    {
        HandlerCount::Ticket a = HandlerCount::enter(count);
        HandlerCount::Ticket b = std::move(a);
        HandlerCount::Ticket c;
        c = std::move(b);
        EXPECT_EQ(count->running(), 1u);
    }
    EXPECT_EQ(count->running(), 0u);
}

TEST(HandlerCount, ATicketKeepsItsCountAlive) {
    auto count = std::make_shared<HandlerCount>(1);
    std::weak_ptr<HandlerCount> weak = count;
    HandlerCount::Ticket t = HandlerCount::try_enter(count);
    count.reset();  // the server (or connection) that owned the count is gone; the handler still runs
    EXPECT_FALSE(weak.expired());
    EXPECT_EQ(weak.lock()->running(), 1u);
    t = HandlerCount::Ticket();
    EXPECT_TRUE(weak.expired());
}

TEST(HandlerCount, ConcurrentEntriesNeverPassTheCap) {
    constexpr std::size_t kCap = 100;
    auto count = std::make_shared<HandlerCount>(kCap);
    constexpr int kThreads = 4, kTries = 200;
    std::vector<std::vector<HandlerCount::Ticket>> held(kThreads);
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
        threads.emplace_back([&, t] {
            for (int i = 0; i < kTries; ++i) {
                HandlerCount::Ticket ticket = HandlerCount::try_enter(count);
                if (ticket) held[t].push_back(std::move(ticket));
            }
        });
    }
    for (std::thread& t : threads)
        t.join();
    std::size_t admitted = 0;
    for (const auto& h : held)
        admitted += h.size();
    EXPECT_EQ(admitted, kCap);
    EXPECT_EQ(count->running(), kCap);
    held.clear();
    EXPECT_EQ(count->running(), 0u);
}

}  // namespace
}  // namespace slipstream::server
