// Histogram bucket choice, cumulative exposition with +Inf, _sum and _count.
#include "metrics/histogram.h"

#include <gtest/gtest.h>

#include <algorithm>

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "metrics/registry.h"

namespace slipstream::metrics {
namespace {

TEST(HistogramTest, BucketIndexIsFirstBoundAtOrAbove) {
    detail::SlotArena arena(1);
    Buckets buckets({10, 20, 30, 40, 50});
    Histogram h(arena, buckets);
    struct Case {
        std::uint64_t value;
        std::size_t index;
    };
    const Case cases[] = {{0, 0},
                          {10, 0},
                          {11, 1},
                          {20, 1},
                          {21, 2},
                          {30, 2},
                          {40, 3},
                          {49, 4},
                          {50, 4},
                          {51, 5},
                          {std::numeric_limits<std::uint64_t>::max(), 5}};
    for (const Case& c : cases)
        EXPECT_EQ(h.bucket_index(c.value), c.index) << c.value;

    Buckets one({7});
    Histogram h1(arena, one);
    EXPECT_EQ(h1.bucket_index(7), 0u);
    EXPECT_EQ(h1.bucket_index(8), 1u);
}

TEST(HistogramTest, EveryLatencyBoundLandsInItsOwnBucket) {
    detail::SlotArena arena(1);
    Buckets buckets = Buckets::latency();
    Histogram h(arena, buckets);
    for (std::size_t i = 0; i < buckets.bounds().size(); ++i) {
        EXPECT_EQ(h.bucket_index(buckets.bounds()[i]), i);
        EXPECT_EQ(h.bucket_index(buckets.bounds()[i] + 1), i + 1);
    }
}

// The bit-width table search must agree with std::lower_bound for any bucket set and value.
TEST(HistogramTest, BucketIndexMatchesLowerBound) {
    constexpr std::uint64_t kMax = std::numeric_limits<std::uint64_t>::max();
    std::vector<std::uint64_t> linear;
    for (std::uint64_t b = 1; b <= 256; ++b)
        linear.push_back(b * 3);
    const Buckets sets[] = {
        Buckets::latency(),
        Buckets::bytes(),
        Buckets(linear),
        Buckets({0}),
        Buckets({0, 1, 2, 3, 4, 5, 6, 7, 8}),
        Buckets({kMax}),
        Buckets({1ull << 63, (1ull << 63) + 1, kMax - 1, kMax}),
        Buckets::exponential(1, 2, 64),
    };
    detail::SlotArena arena(1);
    std::uint64_t x = 0x9E3779B97F4A7C15ull;
    for (const Buckets& buckets : sets) {
        Histogram h(arena, buckets);
        std::vector<std::uint64_t> values = {0, 1, 2, kMax, kMax - 1};
        for (std::uint64_t b : buckets.bounds()) {
            values.insert(values.end(), {b, b - 1, b + 1});
        }
        for (int shift = 0; shift < 64; ++shift) {
            std::uint64_t p = std::uint64_t{1} << shift;
            values.insert(values.end(), {p, p - 1, p + 1});
        }
        for (int i = 0; i < 20000; ++i) {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            values.push_back(x >> (x % 64));
        }
        const auto bounds = buckets.bounds();
        for (std::uint64_t v : values) {
            const auto expected =
                static_cast<std::size_t>(std::lower_bound(bounds.begin(), bounds.end(), v) - bounds.begin());
            ASSERT_EQ(h.bucket_index(v), expected) << "value " << v << " first bound " << bounds[0];
        }
    }
}

TEST(HistogramTest, SnapshotCountsPerBucket) {
    detail::SlotArena arena(4);
    Buckets buckets({100, 200});
    Histogram h(arena, buckets);
    for (std::uint64_t v : {50u, 100u, 150u, 250u, 1000u})
        h.observe(v);
    HistogramSnapshot s = h.snapshot();
    EXPECT_EQ(s.counts, (std::vector<std::uint64_t>{2, 1, 2}));
    EXPECT_EQ(s.count, 5u);
    EXPECT_EQ(s.sum, 1550u);
}

TEST(HistogramTest, RendersCumulativeBucketsSumAndCount) {
    Registry registry(RegistryOptions{.shards = 2});
    Histogram& h = registry.histogram("slipstream_request_seconds", "Request latency.",
                                      Buckets({1'000'000, 10'000'000, 100'000'000}, Buckets::kNanosToSeconds));
    h.observe(500'000);        // 0.0005 s -> le 0.001
    h.observe(1'000'000);      // exactly on the bound -> le 0.001
    h.observe(7'000'000);      // -> le 0.01
    h.observe(250'000'000);    // -> +Inf only
    h.observe(1'500'000'001);  // -> +Inf only
    std::string out;
    registry.render(out);
    EXPECT_EQ(out,
              "# HELP slipstream_request_seconds Request latency.\n"
              "# TYPE slipstream_request_seconds histogram\n"
              "slipstream_request_seconds_bucket{le=\"0.001\"} 2\n"
              "slipstream_request_seconds_bucket{le=\"0.01\"} 3\n"
              "slipstream_request_seconds_bucket{le=\"0.1\"} 3\n"
              "slipstream_request_seconds_bucket{le=\"+Inf\"} 5\n"
              "slipstream_request_seconds_sum 1.758500001\n"
              "slipstream_request_seconds_count 5\n");
}

TEST(HistogramTest, LabelledHistogramPutsLeLast) {
    Registry registry(RegistryOptions{.shards = 1});
    HistogramFamily& f = registry.histogram_family("body_bytes", "", {"route"}, Buckets({64, 1024}));
    f.with({"/up"}).observe(2000);
    f.with({"/a\"b"}).observe(64);
    std::string out;
    registry.render(out);
    EXPECT_EQ(out,
              "# TYPE body_bytes histogram\n"
              "body_bytes_bucket{route=\"/a\\\"b\",le=\"64\"} 1\n"
              "body_bytes_bucket{route=\"/a\\\"b\",le=\"1024\"} 1\n"
              "body_bytes_bucket{route=\"/a\\\"b\",le=\"+Inf\"} 1\n"
              "body_bytes_sum{route=\"/a\\\"b\"} 64\n"
              "body_bytes_count{route=\"/a\\\"b\"} 1\n"
              "body_bytes_bucket{route=\"/up\",le=\"64\"} 0\n"
              "body_bytes_bucket{route=\"/up\",le=\"1024\"} 0\n"
              "body_bytes_bucket{route=\"/up\",le=\"+Inf\"} 1\n"
              "body_bytes_sum{route=\"/up\"} 2000\n"
              "body_bytes_count{route=\"/up\"} 1\n");
}

}  // namespace
}  // namespace slipstream::metrics
