// Reads rendered output back with a strict line parser: every line well-formed, values and labels intact.
#include <gtest/gtest.h>

#include <cmath>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "metrics/exposition_reader.h"
#include "metrics/process_metrics.h"
#include "metrics/registry.h"

namespace slipstream::metrics {
namespace {

using test_util::parse_exposition;
using test_util::ParsedFamily;
using Labels = std::vector<std::pair<std::string, std::string>>;

TEST(ExpositionParseTest, EverythingRenderedReadsBack) {
    Registry registry(RegistryOptions{.shards = 4});
    register_process_metrics(registry);
    CounterFamily& req = registry.counter_family("slipstream_http_requests_total", "Requests.\nBy route \\ method.",
                                                 {"route", "method", "status"});
    req.with({"/users/{id}", "GET", "200"}).inc(3);
    req.with({"/q\"uote\\d\nx", "POST", "500"}).inc();
    registry.gauge("slipstream_inflight", "In flight.").set(-2);
    registry.double_gauge("slipstream_ratio", "Ratio.").set(0.125);
    HistogramFamily& lat =
        registry.histogram_family("slipstream_request_duration_seconds", "Latency.", {"route"}, Buckets::latency());
    const std::uint64_t observations[] = {40'000, 300'000, 3'000'000, 20'000'000'000};
    for (std::uint64_t ns : observations)
        lat.with({"/a"}).observe(ns);
    lat.with({"/b"});
    registry.histogram("slipstream_body_bytes", "Body sizes.", Buckets::bytes()).observe(5000);
    registry.callback_gauge("slipstream_open_connections", "", [] { return 12.0; });

    std::string out;
    registry.render(out);
    auto parsed = parse_exposition(out);
    ASSERT_TRUE(parsed.is_ok()) << parsed.status().to_string() << "\n" << out;
    const std::vector<ParsedFamily>& families = *parsed;

    std::vector<std::string> names;
    for (const ParsedFamily& f : families)
        names.push_back(f.name + " " + f.type);
    EXPECT_EQ(names,
              (std::vector<std::string>{"process_cpu_seconds_total counter", "process_resident_memory_bytes gauge",
                                        "process_virtual_memory_bytes gauge", "process_open_fds gauge",
                                        "process_max_fds gauge", "process_start_time_seconds gauge",
                                        "slipstream_http_requests_total counter", "slipstream_inflight gauge",
                                        "slipstream_ratio gauge", "slipstream_request_duration_seconds histogram",
                                        "slipstream_body_bytes histogram", "slipstream_open_connections gauge"}));
    for (std::size_t i = 0; i < 6; ++i) {
        ASSERT_EQ(families[i].samples.size(), 1u) << families[i].name;
        EXPECT_GE(families[i].samples[0].value, 0) << families[i].name;
    }

    const ParsedFamily& r = families[6];
    EXPECT_EQ(r.help, "Requests.\nBy route \\ method.");
    ASSERT_EQ(r.samples.size(), 2u);
    EXPECT_EQ(r.samples[0].labels, (Labels{{"route", "/q\"uote\\d\nx"}, {"method", "POST"}, {"status", "500"}}));
    EXPECT_EQ(r.samples[0].value, 1);
    EXPECT_EQ(r.samples[1].labels, (Labels{{"route", "/users/{id}"}, {"method", "GET"}, {"status", "200"}}));
    EXPECT_EQ(r.samples[1].value, 3);
    EXPECT_EQ(families[7].samples[0].value, -2);
    EXPECT_EQ(families[8].samples[0].value, 0.125);

    const ParsedFamily& h = families[9];
    ASSERT_EQ(h.samples.size(), 2u * (17 + 1 + 2));  // two children: 18 buckets, _sum, _count
    EXPECT_EQ(h.samples[0].name, "slipstream_request_duration_seconds_bucket");
    EXPECT_EQ(h.samples[0].labels, (Labels{{"route", "/a"}, {"le", "0.00005"}}));
    EXPECT_EQ(h.samples[0].value, 1);
    EXPECT_EQ(h.samples[3].labels, (Labels{{"route", "/a"}, {"le", "0.0005"}}));
    EXPECT_EQ(h.samples[3].value, 2);
    EXPECT_EQ(h.samples[16].labels, (Labels{{"route", "/a"}, {"le", "10"}}));
    EXPECT_EQ(h.samples[16].value, 3);
    EXPECT_EQ(h.samples[17].labels, (Labels{{"route", "/a"}, {"le", "+Inf"}}));
    EXPECT_EQ(h.samples[17].value, 4);
    EXPECT_EQ(h.samples[18].name, "slipstream_request_duration_seconds_sum");
    EXPECT_DOUBLE_EQ(h.samples[18].value, 20.00334);
    EXPECT_EQ(h.samples[19].name, "slipstream_request_duration_seconds_count");
    EXPECT_EQ(h.samples[19].value, 4);
    EXPECT_EQ(h.samples[39].labels, (Labels{{"route", "/b"}}));
    EXPECT_EQ(h.samples[39].value, 0);

    const ParsedFamily& b = families[10];
    ASSERT_EQ(b.samples.size(), 12u + 2u);
    EXPECT_EQ(b.samples[3].labels, (Labels{{"le", "4096"}}));
    EXPECT_EQ(b.samples[3].value, 0);
    EXPECT_EQ(b.samples[4].labels, (Labels{{"le", "16384"}}));
    EXPECT_EQ(b.samples[4].value, 1);
    EXPECT_EQ(b.samples[12].value, 5000);
    EXPECT_EQ(families[11].help, "");
    EXPECT_EQ(families[11].samples[0].value, 12);
}

// The reader must reject what a scraper would reject, or the test above proves nothing.
TEST(ExpositionParseTest, ReaderRejectsMalformedText) {
    struct Case {
        std::string text;
        std::string error;
    };
    const Case cases[] = {
        {"# TYPE a counter\na 1", "invalid_argument: no final newline"},
        {"# TYPE a counter\n\na 1\n", "invalid_argument: line 2: empty line"},
        {"a 1\n", "invalid_argument: line 1: sample before its TYPE"},
        {"# TYPE a counter\nb 1\n", "invalid_argument: line 2: sample b does not belong to family a"},
        {"# TYPE a counter\na_sum 1\n", "invalid_argument: line 2: sample a_sum does not belong to family a"},
        {"# TYPE a widget\n", "invalid_argument: line 1: unknown type widget"},
        {"# TYPE a counter\n# TYPE a counter\n", "invalid_argument: line 2: second TYPE"},
        {"# TYPE a counter\na 1\n# HELP a x\n", "invalid_argument: line 3: HELP/TYPE after samples"},
        {"# HELP a bad \\t escape\n", "invalid_argument: line 1: bad escape in HELP"},
        {"# TYPE a counter\na one\n", "invalid_argument: line 2: bad value \"one\""},
        {"# TYPE a counter\na{x=\"1\" 1\n", "invalid_argument: line 2: expected , or } after a label"},
        {"# TYPE a counter\na{x=\"1 1\n", "invalid_argument: line 2: unterminated value of label x"},
        {"# TYPE a counter\na{x=\"\\t\"} 1\n", "invalid_argument: line 2: bad escape in value of label x"},
        {"# TYPE a counter\na{x=\"1\",x=\"2\"} 1\n", "invalid_argument: line 2: label x repeated"},
        {"# TYPE a counter\na{1=\"1\"} 1\n", "invalid_argument: line 2: bad label name"},
        {"# TYPE a counter\na\t1\n", "invalid_argument: line 2: expected a space before the value"},
        {"# TYPE h histogram\nh_bucket{le=\"1\"} 2\nh_bucket{le=\"+Inf\"} 1\nh_sum 1\nh_count 1\n",
         "invalid_argument: line 5: bucket counts not cumulative"},
        {"# TYPE h histogram\nh_bucket{le=\"1\"} 1\nh_sum 1\nh_count 1\n",
         "invalid_argument: line 4: buckets do not end in +Inf"},
        {"# TYPE h histogram\nh_bucket{le=\"+Inf\"} 2\nh_sum 1\nh_count 1\n# TYPE b gauge\n",
         "invalid_argument: line 5: +Inf bucket differs from _count"},
        {"# TYPE a gauge\n# TYPE b gauge\n# TYPE a gauge\n", "invalid_argument: line 3: family a appears twice"},
        {"# comment\n", "invalid_argument: line 1: unexpected comment"},
    };
    for (const Case& c : cases) {
        auto parsed = parse_exposition(c.text);
        EXPECT_EQ(parsed.is_ok() ? "ok" : parsed.status().to_string(), c.error) << c.text;
    }
    EXPECT_TRUE(parse_exposition("# HELP a x\n# TYPE a counter\na{b=\"\\\"\\n\\\\\"} +Inf\n").is_ok());
}

}  // namespace
}  // namespace slipstream::metrics
