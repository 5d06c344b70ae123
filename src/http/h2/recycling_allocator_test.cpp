// Tests for RecyclingAllocator: contents survive growth, freed blocks come back, zeroing, large blocks.
#include "http/h2/recycling_allocator.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <string>

namespace slipstream::http::h2::detail {
namespace {

TEST(RecyclingAllocator, ReusesFreedBlocksOfTheSameClass) {
    RecyclingAllocator a;
    for (std::size_t n : {1, 40, 48, 100, 1000, 8000}) {
        void* p = a.allocate(n);
        ASSERT_NE(p, nullptr) << n;
        EXPECT_EQ(reinterpret_cast<std::uintptr_t>(p) % 16, 0u) << n;
        std::memset(p, 0xAB, n);
        a.release(p);
        EXPECT_EQ(a.allocate(n), p) << n;  // the same block again
        a.release(p);
    }
    a.release(nullptr);
}

TEST(RecyclingAllocator, ReallocateKeepsTheBytes) {
    RecyclingAllocator a;
    const std::size_t sizes[] = {10, 40, 200, 5000, 20000, 100000, 30};
    std::string expect = "0123456789";
    char* p = static_cast<char*>(a.reallocate(nullptr, 10));
    std::memcpy(p, expect.data(), 10);
    for (std::size_t n : sizes) {
        p = static_cast<char*>(a.reallocate(p, n));
        ASSERT_NE(p, nullptr) << n;
        EXPECT_EQ(std::string(p, 10), expect) << n;
        std::memset(p + 10, 'x', n - 10);
    }
    a.release(p);
}

TEST(RecyclingAllocator, ZeroedAndOverflow) {
    RecyclingAllocator a;
    void* p = a.allocate(300);
    std::memset(p, 0xFF, 300);
    a.release(p);
    auto* z = static_cast<unsigned char*>(a.allocate_zeroed(30, 10));  // reuses the dirty block
    ASSERT_NE(z, nullptr);
    for (int i = 0; i < 300; ++i)
        ASSERT_EQ(z[i], 0) << i;
    a.release(z);
    EXPECT_EQ(a.allocate_zeroed(~std::size_t{0} / 2, 4), nullptr);
    EXPECT_EQ(a.allocate(~std::size_t{0} - 4), nullptr);
}

}  // namespace
}  // namespace slipstream::http::h2::detail
