// Arena allocation, alignment and reset.
#include "base/arena.h"

#include <gtest/gtest.h>

#include <cstdint>

namespace slipstream::base {
namespace {

TEST(ArenaTest, AlignsAndCopies) {
    Arena arena(64);
    char* c = static_cast<char*>(arena.allocate(1, 1));
    *c = 'a';
    auto* d = arena.make<double>(2.5);
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(d) % alignof(double), 0u);
    EXPECT_EQ(*d, 2.5);
    std::string_view s = arena.copy("request body that is longer than one block of sixty-four bytes, yes");
    EXPECT_EQ(s, "request body that is longer than one block of sixty-four bytes, yes");
}

TEST(ArenaTest, ResetReusesFirstBlock) {
    Arena arena(128);
    void* first = arena.allocate(8);
    for (int i = 0; i < 100; ++i)
        arena.allocate(64);
    arena.reset();
    EXPECT_EQ(arena.used(), 0u);
    EXPECT_EQ(arena.allocate(8), first);
}

}  // namespace
}  // namespace slipstream::base
