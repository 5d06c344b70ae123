// Tests for transfer_deadline(): the inactivity timeout, the minimum rate after its grace, and their meeting.
#include "server/core/transfer_deadline.h"

#include <gtest/gtest.h>

namespace slipstream::server {
namespace {

constexpr base::MonoNanos kMs = base::kNanosPerMilli;
constexpr base::MonoNanos kS = base::kNanosPerSecond;

TEST(TransferDeadline, WithoutAMinimumRateOnlyInactivityCounts) {
    TransferDeadline d = transfer_deadline(/*now=*/50 * kS, /*start=*/0, /*bytes=*/1, 1000, 0);
    EXPECT_EQ(d.at, 51 * kS);
    EXPECT_FALSE(d.by_rate);
}

TEST(TransferDeadline, TableOfTransfers) {
    struct Case {
        base::MonoNanos now, start;
        std::uint64_t bytes;
        std::uint32_t timeout_ms, min_rate;
        base::MonoNanos at;
        bool by_rate;
    };
    const Case cases[] = {
        // Fresh transfer: both limits give start + timeout; inactivity wins the tie.
        {0, 0, 0, 1000, 1024, 1 * kS, false},
        // A fast client: 10 KiB in 1 s at a 1 KiB/s minimum earned 10 s; inactivity is nearer.
        {1 * kS, 0, 10 * 1024, 1000, 1024, 2 * kS, false},
        // A trickle just inside the timeout: 1 byte each 900 ms. After 3 bytes (t = 2.7 s) it earned 3/1024 s
        // on top of the 1 s grace: the rate deadline (1.0029 s) is already behind it.
        {2700 * kMs, 0, 3, 1000, 1024, 1 * kS + 3 * kS / 1024, true},
        // Exactly at the minimum rate for a long time: never behind (deadline stays ahead by the grace).
        {100 * kS, 0, 100 * 1024, 1000, 1024, 101 * kS, false},
        // Just under it: the rate deadline is the nearer one, 1 s grace + 99 s earned.
        {100 * kS, 0, 99 * 1024, 1000, 1024, 100 * kS, true},
        // The start offsets the rate deadline, not the inactivity one.
        {7 * kS, 5 * kS, 512, 1000, 1024, 6 * kS + 500 * kMs, true},
        // Huge byte counts at a tiny rate do not overflow: the rate deadline is out of reach.
        {0, 0, std::uint64_t{1} << 62, 1000, 1, 1 * kS, false},
    };
    for (const Case& c : cases) {
        SCOPED_TRACE(testing::Message() << "now=" << c.now << " start=" << c.start << " bytes=" << c.bytes);
        TransferDeadline d = transfer_deadline(c.now, c.start, c.bytes, c.timeout_ms, c.min_rate);
        EXPECT_EQ(d.at, c.at);
        EXPECT_EQ(d.by_rate, c.by_rate);
    }
}

}  // namespace
}  // namespace slipstream::server
