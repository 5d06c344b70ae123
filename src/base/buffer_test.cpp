// Buffer growth, consumption and compaction.
#include "base/buffer.h"

#include <gtest/gtest.h>

#include <string>

namespace slipstream::base {
namespace {

TEST(BufferTest, AppendConsumeKeepsOrder) {
    Buffer b;
    b.append("hello ");
    b.append("world");
    EXPECT_EQ(b.view(), "hello world");
    b.consume(6);
    EXPECT_EQ(b.view(), "world");
    b.consume(100);
    EXPECT_TRUE(b.empty());
}

TEST(BufferTest, GrowsAndCompacts) {
    Buffer b(16);
    std::string big(1000, 'x');
    b.append(big);
    EXPECT_EQ(b.size(), 1000u);
    b.consume(990);
    std::size_t cap = b.capacity();
    auto space = b.prepare(cap - 10);  // fits only after compaction
    EXPECT_GE(space.size(), cap - 10);
    EXPECT_EQ(b.capacity(), cap);
    EXPECT_EQ(b.view(), std::string(10, 'x'));
}

TEST(BufferTest, ShrinkIfEmptyReleasesMemory) {
    Buffer b;
    b.append(std::string(100000, 'y'));
    b.consume(100000);
    b.shrink_if_empty(512);
    EXPECT_EQ(b.capacity(), 512u);
}

}  // namespace
}  // namespace slipstream::base
