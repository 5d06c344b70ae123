// Bucket sets: default bounds, their `le` text, and rejected specifications.
#include "metrics/buckets.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace slipstream::metrics {
namespace {

std::vector<std::string> les(const Buckets& b) {
    std::vector<std::string> out;
    for (std::size_t i = 0; i <= b.bounds().size(); ++i)
        out.push_back(b.le(i));
    return out;
}

TEST(BucketsTest, LatencyIsNanosShownInSeconds) {
    Buckets b = Buckets::latency();
    EXPECT_EQ(b.unit_divisor(), 1'000'000'000u);
    EXPECT_EQ(b.bounds().front(), 50'000u);
    EXPECT_EQ(b.bounds().back(), 10'000'000'000u);
    EXPECT_EQ(les(b),
              (std::vector<std::string>{"0.00005", "0.0001", "0.00025", "0.0005", "0.001", "0.0025", "0.005", "0.01",
                                        "0.025", "0.05", "0.1", "0.25", "0.5", "1", "2.5", "5", "10", "+Inf"}));
}

TEST(BucketsTest, BytesArePowersOfFour) {
    Buckets b = Buckets::bytes();
    EXPECT_EQ(b.unit_divisor(), 1u);
    EXPECT_EQ(les(b), (std::vector<std::string>{"64", "256", "1024", "4096", "16384", "65536", "262144", "1048576",
                                                "4194304", "16777216", "67108864", "+Inf"}));
}

TEST(BucketsTest, ExponentialWithDivisor) {
    Buckets b = Buckets::exponential(1, 10, 4, 1000);
    EXPECT_EQ(les(b), (std::vector<std::string>{"0.001", "0.01", "0.1", "1", "+Inf"}));
}

std::string error_of(void (*make)()) {
    try {
        make();
    } catch (const std::invalid_argument& e) {
        return e.what();
    }
    return "ok";
}

TEST(BucketsTest, RejectsBadSpecs) {
    struct Case {
        void (*make)();
        std::string error;
    };
    const Case cases[] = {
        {[] { Buckets({}); },
         "metrics: buckets: no upper bounds (the +Inf bucket is implicit; give at least one bound)"},
        {[] {
             Buckets({1, 2, 2});
         },
         "metrics: buckets: bounds must increase strictly: bound 2 (2) <= bound 1 (2)"},
        {[] {
             Buckets({5, 3});
         },
         "metrics: buckets: bounds must increase strictly: bound 1 (3) <= bound 0 (5)"},
        {[] { Buckets({1}, 0); }, "metrics: buckets: unit divisor 0 is not a power of ten"},
        {[] { Buckets({1}, 1024); }, "metrics: buckets: unit divisor 1024 is not a power of ten"},
        {[] { Buckets(std::vector<std::uint64_t>(257, 0)); }, "metrics: buckets: 257 bounds, at most 256"},
        {[] { Buckets::exponential(0, 2, 3); }, "metrics: buckets: exponential start must be > 0"},
        {[] { Buckets::exponential(1, 1, 3); }, "metrics: buckets: exponential factor must be >= 2, got 1"},
        {[] { Buckets::exponential(1, 2, 0); }, "metrics: buckets: exponential count must be in [1, 256], got 0"},
        {[] { Buckets::exponential(1, 2, 65); }, "metrics: buckets: exponential bound 64 overflows 64 bits"},
        {[] { Buckets::exponential(1, 2, 64); }, "ok"},
    };
    for (const Case& c : cases)
        EXPECT_EQ(error_of(c.make), c.error);
}

}  // namespace
}  // namespace slipstream::metrics
