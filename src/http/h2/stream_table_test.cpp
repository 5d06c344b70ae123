// StreamTable and WriteQueue: lookups, ordering, recycling, round-robin order and removal.
#include "http/h2/stream_table.h"

#include <gtest/gtest.h>

#include <vector>

#include "http/h2/write_queue.h"

namespace slipstream::http::h2::detail {
namespace {

std::vector<std::int32_t> ids(StreamTable& t) {
    std::vector<std::int32_t> out;
    for (std::size_t i = 0; i < t.size(); ++i)
        out.push_back(t.at(i).id);
    return out;
}

TEST(StreamTable, FindsOpensAndClosesById) {
    StreamTable t;
    EXPECT_EQ(t.find(1), nullptr);
    for (std::int32_t id : {1, 3, 9, 5})  // 5 after 9: inserted in order
        t.open(id).body = "b" + std::to_string(id);
    EXPECT_EQ(ids(t), (std::vector<std::int32_t>{1, 3, 5, 9}));
    ASSERT_NE(t.find(9), nullptr);
    EXPECT_EQ(t.find(9)->body, "b9");
    EXPECT_EQ(t.find(5)->body, "b5");
    EXPECT_EQ(t.find(7), nullptr);
    Stream* three = t.find(3);
    t.close(*three);
    EXPECT_EQ(t.find(3), nullptr);
    EXPECT_EQ(ids(t), (std::vector<std::int32_t>{1, 5, 9}));
    // The closed stream is recycled: the next one is the same object, fresh.
    Stream& eleven = t.open(11);
    EXPECT_EQ(&eleven, three);
    EXPECT_EQ(eleven.id, 11);
    EXPECT_TRUE(eleven.body.empty());
}

TEST(StreamTable, ManyStreamsCloseInAnyOrder) {
    StreamTable t;
    for (std::int32_t id = 1; id < 200; id += 2)
        t.open(id);
    for (std::int32_t id = 199; id > 0; id -= 4)
        t.close(*t.find(id));
    for (std::int32_t id = 1; id < 200; id += 2)
        EXPECT_EQ(t.find(id) != nullptr, (199 - id) % 4 != 0) << id;
    while (!t.empty())
        t.close(t.at(0));
    EXPECT_EQ(t.find(1), nullptr);
}

TEST(StreamTable, ASlidingWindowOfStreams) {
    // Like a client with 16 requests in flight: the oldest closes as a new one opens.
    StreamTable t;
    std::int32_t next = 1;
    for (int i = 0; i < 16; ++i, next += 2)
        t.open(next);
    for (int i = 0; i < 500; ++i, next += 2) {
        Stream* oldest = &t.at(0);
        std::int32_t gone = oldest->id;
        t.close(*oldest);
        EXPECT_EQ(t.find(gone), nullptr);
        t.open(next);
        ASSERT_EQ(t.size(), 16u);
        EXPECT_EQ(t.at(0).id, gone + 2);
        EXPECT_EQ(t.at(15).id, next);
        EXPECT_NE(t.find(next - 10), nullptr);
    }
    t.close(*t.find(next - 4));  // one from the middle
    EXPECT_EQ(t.size(), 15u);
    EXPECT_EQ(t.find(next - 4), nullptr);
    EXPECT_NE(t.find(next - 2), nullptr);
}

TEST(WriteQueue, RoundRobinWithRemoval) {
    Stream a, b, c;
    a.id = 1, b.id = 3, c.id = 5;
    WriteQueue q;
    q.push_back(a);
    q.push_back(b);
    q.push_back(a);  // already queued: no change
    q.push_back(c);
    q.remove(b);
    std::vector<std::int32_t> order;
    while (!q.empty())
        order.push_back(q.pop_front().id);
    EXPECT_EQ(order, (std::vector<std::int32_t>{1, 5}));
    EXPECT_FALSE(a.writing);
    q.push_back(c);
    q.push_back(b);
    q.clear();
    EXPECT_TRUE(q.empty());
    EXPECT_FALSE(b.writing);
}

}  // namespace
}  // namespace slipstream::http::h2::detail
