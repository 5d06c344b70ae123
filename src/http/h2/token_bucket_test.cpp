// TokenBucket: burst, refill by the caller's clock, cap at the burst.
#include "http/h2/token_bucket.h"

#include <gtest/gtest.h>

namespace slipstream::http::h2 {
namespace {

constexpr base::MonoNanos kSecond = 1'000'000'000;

TEST(TokenBucket, BurstThenRefill) {
    TokenBucket b(3, 2);  // 3 at once, then 2 a second
    base::MonoNanos t = 5 * kSecond;
    EXPECT_TRUE(b.take(t));
    EXPECT_TRUE(b.take(t));
    EXPECT_TRUE(b.take(t));
    EXPECT_FALSE(b.take(t));
    EXPECT_FALSE(b.take(t + kSecond / 4));  // half a token
    EXPECT_TRUE(b.take(t + kSecond / 2));   // one token after half a second in all
    EXPECT_FALSE(b.take(t + kSecond / 2));
}

TEST(TokenBucket, RefillIsCappedAtTheBurst) {
    TokenBucket b(2, 100);
    base::MonoNanos t = kSecond;
    EXPECT_TRUE(b.take(t));
    t += 3600 * kSecond;
    int taken = 0;
    while (b.take(t))
        ++taken;
    EXPECT_EQ(taken, 2);
}

}  // namespace
}  // namespace slipstream::http::h2
