// CopyStream and CopyOutStream without a server: the bound, the producer's and the consumer's wake-ups, closing.
#include <gtest/gtest.h>

#include <string>

#include "store/database/copy_out_stream.h"
#include "store/database/copy_stream.h"
#include "store/postgres/copy_data.h"

namespace slipstream::store {
namespace {

TEST(CopyStream, PushSaysWhenFullAndTheProducerHearsOnceHalfIsSent) {
    CopyStream stream(100);
    EXPECT_TRUE(stream.push(std::string(60, 'a')));
    EXPECT_FALSE(stream.push(std::string(60, 'b')));  // 120 waiting: full
    int drained = 0;
    EXPECT_FALSE(stream.when_drained([&] { ++drained; }));
    std::string out;
    ASSERT_TRUE(stream.pull(out).is_ok());
    EXPECT_EQ(out, std::string(60, 'a'));
    EXPECT_EQ(drained, 0);  // 60 still waiting: above half
    ASSERT_TRUE(stream.pull(out).is_ok());
    EXPECT_EQ(drained, 1);
    EXPECT_EQ(stream.buffered(), 0u);
    EXPECT_TRUE(stream.when_drained([&] { ++drained; }));  // room now: at once
    EXPECT_EQ(drained, 2);
    EXPECT_TRUE(postgres::is_copy_data_pending(stream.pull(out)));  // nothing yet, not finished
    stream.finish();
    out.clear();  // pull() appends to an empty string
    ASSERT_TRUE(stream.pull(out).is_ok());
    EXPECT_TRUE(out.empty());  // the end
}

TEST(CopyStream, CloseWakesAWaitingProducerAndDropsWhatComesLater) {
    CopyStream stream(10);
    EXPECT_FALSE(stream.push("0123456789"));
    int drained = 0;
    EXPECT_FALSE(stream.when_drained([&] { ++drained; }));
    stream.close();
    EXPECT_EQ(drained, 1);
    EXPECT_FALSE(stream.push("more"));  // closed: push no more
    EXPECT_EQ(stream.buffered(), 0u);
}

TEST(CopyOutStream, PausesAtTheLimitAndResumesAtHalf) {
    CopyOutStream stream(100);
    int resumed = 0, ready = 0;
    stream.set_resume([&] { ++resumed; });
    EXPECT_FALSE(stream.when_ready([&] { ++ready; }));
    EXPECT_TRUE(stream.offer(std::string(40, 'a')).is_ok());
    EXPECT_EQ(ready, 1);  // the waiting consumer heard of the data once
    EXPECT_TRUE(stream.offer(std::string(40, 'b')).is_ok());
    EXPECT_TRUE(postgres::is_copy_data_pending(stream.offer(std::string(40, 'c'))));  // 120: pause
    EXPECT_EQ(ready, 1);
    std::string out;
    ASSERT_TRUE(stream.take(out, 1 << 20));  // the messages were gathered into one piece
    EXPECT_EQ(out, std::string(40, 'a') + std::string(40, 'b') + std::string(40, 'c'));
    EXPECT_EQ(resumed, 1);
    EXPECT_FALSE(stream.take(out, 1 << 20));
    EXPECT_FALSE(stream.finished());
    stream.end();
    EXPECT_TRUE(stream.finished());
    EXPECT_TRUE(stream.when_ready([&] { ++ready; }));
    EXPECT_EQ(ready, 2);
}

TEST(CopyOutStream, TakeHandsOverWholePiecesUpToTheSizeAsked) {
    CopyOutStream stream(1 << 20);
    for (int i = 0; i < 3; ++i)  // pieces of about 64 KiB: three of 40 KiB messages make two pieces
        ASSERT_TRUE(stream.offer(std::string(40 * 1024, static_cast<char>('a' + i))).is_ok());
    std::string out;
    ASSERT_TRUE(stream.take(out, 1));  // at least one piece, even when larger than asked
    EXPECT_EQ(out.size(), 80u * 1024);
    ASSERT_TRUE(stream.take(out, 1 << 20));
    EXPECT_EQ(out, std::string(40 * 1024, 'c'));
    EXPECT_EQ(stream.buffered(), 0u);
}

TEST(CopyOutStream, CloseRefusesMoreAndResumesAPausedProducer) {
    CopyOutStream stream(10);
    int resumed = 0;
    stream.set_resume([&] { ++resumed; });
    EXPECT_TRUE(postgres::is_copy_data_pending(stream.offer("0123456789")));
    stream.close();
    EXPECT_EQ(resumed, 1);
    EXPECT_EQ(stream.offer("x").code(), base::StatusCode::kCancelled);
    std::string out;
    EXPECT_FALSE(stream.take(out, 100));
}

}  // namespace
}  // namespace slipstream::store
