// ResponseCache: freshness by a fake clock, 200-only, bounded size.
#include "response_cache.h"

#include <gtest/gtest.h>

namespace slipstream::python {
namespace {

using namespace std::chrono_literals;

TEST(ResponseCache, ExpiresAfterTtl) {
    ResponseCache cache(5s, 8);
    ResponseCache::Clock::time_point t0{};
    cache.store("/a?x=1", Response::json("1"), t0);
    ASSERT_TRUE(cache.lookup("/a?x=1", t0 + 4s).has_value());
    EXPECT_EQ(cache.lookup("/a?x=1", t0 + 4s)->body, "1");
    EXPECT_FALSE(cache.lookup("/a?x=1", t0 + 5s).has_value());
    EXPECT_FALSE(cache.lookup("/a?x=2", t0).has_value());
}

TEST(ResponseCache, OnlyOkResponses) {
    ResponseCache cache(5s, 8);
    cache.store("/a", Response::json("{}", 404), {});
    EXPECT_FALSE(cache.lookup("/a", {}).has_value());
}

TEST(ResponseCache, FullCacheDropsExpiredThenRefuses) {
    ResponseCache cache(5s, 2);
    ResponseCache::Clock::time_point t0{};
    cache.store("/a", Response::json("a"), t0);
    cache.store("/b", Response::json("b"), t0 + 3s);
    cache.store("/c", Response::json("c"), t0 + 4s);  // full, nothing expired: not stored
    EXPECT_FALSE(cache.lookup("/c", t0 + 4s).has_value());
    cache.store("/c", Response::json("c"), t0 + 6s);  // "/a" expired: dropped, "/c" stored
    EXPECT_EQ(cache.size(), 2u);
    EXPECT_TRUE(cache.lookup("/c", t0 + 6s).has_value());
    EXPECT_TRUE(cache.lookup("/b", t0 + 6s).has_value());
}

}  // namespace
}  // namespace slipstream::python
