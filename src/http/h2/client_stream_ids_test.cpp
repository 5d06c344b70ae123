// ClientStreamIds and ReceiveWindow: idle, skipped, reset and closed ids; window accounting and updates.
#include "http/h2/client_stream_ids.h"

#include <gtest/gtest.h>

#include "http/h2/receive_window.h"

namespace slipstream::http::h2::detail {
namespace {

using Kind = ClientStreamIds::Kind;

TEST(ClientStreamIds, TellsIdsApart) {
    ClientStreamIds ids;
    EXPECT_EQ(ids.classify(1), Kind::kIdle);
    ids.open(1);
    ids.open(7);  // 3 and 5 skipped
    ids.open(9);
    ids.note_reset(7);
    ids.note_client_reset(9);
    EXPECT_EQ(ids.last(), 9);
    EXPECT_EQ(ids.classify(1), Kind::kClosed);
    EXPECT_EQ(ids.classify(3), Kind::kSkipped);
    EXPECT_EQ(ids.classify(5), Kind::kSkipped);
    EXPECT_EQ(ids.classify(7), Kind::kResetByUs);
    EXPECT_EQ(ids.classify(9), Kind::kResetByClient);
    EXPECT_EQ(ids.classify(11), Kind::kIdle);
    ClientStreamIds first_skips;
    first_skips.open(5);  // 1 and 3 never used
    EXPECT_EQ(first_skips.classify(1), Kind::kSkipped);
    EXPECT_EQ(first_skips.classify(5), Kind::kClosed);
}

TEST(ReceiveWindow, UpdatesOnceHalfIsConsumed) {
    ReceiveWindow w(100);
    EXPECT_TRUE(w.take(60));
    EXPECT_FALSE(w.take(41));  // 40 left
    EXPECT_EQ(w.consume(30), 0u);
    EXPECT_EQ(w.consume(20), 50u);  // half of the window: announced, available again
    EXPECT_EQ(w.available(), 90);
    EXPECT_EQ(w.resize(10), 0u);  // a smaller SETTINGS_INITIAL_WINDOW_SIZE: the difference applies, may go negative
    EXPECT_EQ(w.available(), 0);
    EXPECT_FALSE(w.take(1));
    EXPECT_TRUE(w.take(0));
    // Bytes consumed before a shrink that are now half of the window are announced by the shrink itself.
    ReceiveWindow v(100);
    EXPECT_TRUE(v.take(100));
    EXPECT_EQ(v.consume(40), 0u);
    EXPECT_EQ(v.resize(60), 40u);  // 0 left + 40 announced - 40 shrunk
    EXPECT_EQ(v.available(), 0);
}

}  // namespace
}  // namespace slipstream::http::h2::detail
