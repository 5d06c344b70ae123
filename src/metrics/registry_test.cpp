// Exact exposition text of the Registry: types, labels, order, escaping, callbacks and rejected names.
#include "metrics/registry.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace slipstream::metrics {
namespace {

std::string render(const Registry& registry) {
    std::string out;
    registry.render(out);
    return out;
}

TEST(RegistryTest, EmptyRegistryRendersNothing) {
    Registry registry;
    EXPECT_EQ(render(registry), "");
    EXPECT_GE(registry.shards(), 1u);
    EXPECT_EQ(registry.shards() & (registry.shards() - 1), 0u);
}

TEST(RegistryTest, UnlabelledCounterAndGauges) {
    Registry registry(RegistryOptions{.shards = 4});
    Counter& c = registry.counter("slipstream_connections_accepted_total", "Connections accepted.");
    Gauge& g = registry.gauge("slipstream_inflight", "Requests in flight.");
    DoubleCounter& dc = registry.double_counter("slipstream_busy_seconds_total", "Busy time.");
    DoubleGauge& dg = registry.double_gauge("slipstream_load", "Load factor.");
    EXPECT_EQ(render(registry),
              "# HELP slipstream_connections_accepted_total Connections accepted.\n"
              "# TYPE slipstream_connections_accepted_total counter\n"
              "slipstream_connections_accepted_total 0\n"
              "# HELP slipstream_inflight Requests in flight.\n"
              "# TYPE slipstream_inflight gauge\n"
              "slipstream_inflight 0\n"
              "# HELP slipstream_busy_seconds_total Busy time.\n"
              "# TYPE slipstream_busy_seconds_total counter\n"
              "slipstream_busy_seconds_total 0\n"
              "# HELP slipstream_load Load factor.\n"
              "# TYPE slipstream_load gauge\n"
              "slipstream_load 0\n");

    c.inc();
    c.inc(41);
    g.set(10);
    g.inc();
    g.dec(14);
    dc.inc(0.25);
    dc.inc(1.5);
    dc.inc(-3.0);  // ignored: counters never go down
    dc.inc(std::numeric_limits<double>::quiet_NaN());
    dg.set(2.0);
    dg.dec(0.5);
    EXPECT_EQ(c.value(), 42u);
    EXPECT_EQ(g.value(), -3);
    EXPECT_EQ(dc.value(), 1.75);
    EXPECT_EQ(dg.value(), 1.5);
    EXPECT_EQ(render(registry),
              "# HELP slipstream_connections_accepted_total Connections accepted.\n"
              "# TYPE slipstream_connections_accepted_total counter\n"
              "slipstream_connections_accepted_total 42\n"
              "# HELP slipstream_inflight Requests in flight.\n"
              "# TYPE slipstream_inflight gauge\n"
              "slipstream_inflight -3\n"
              "# HELP slipstream_busy_seconds_total Busy time.\n"
              "# TYPE slipstream_busy_seconds_total counter\n"
              "slipstream_busy_seconds_total 1.75\n"
              "# HELP slipstream_load Load factor.\n"
              "# TYPE slipstream_load gauge\n"
              "slipstream_load 1.5\n");
}

TEST(RegistryTest, LabelledCounterSortedByLabels) {
    Registry registry(RegistryOptions{.shards = 2});
    CounterFamily& requests =
        registry.counter_family("slipstream_http_requests_total", "Requests served.", {"route", "method", "status"});
    EXPECT_EQ(render(registry),
              "# HELP slipstream_http_requests_total Requests served.\n"
              "# TYPE slipstream_http_requests_total counter\n");
    Counter& users = requests.with({"/users/{id}", "GET", "200"});
    users.inc(3);
    requests.with({"/health", "GET", "200"}).inc();
    requests.with({"/users/{id}", "DELETE", "404"}).inc(2);
    requests.with({"/health", "GET", "200"}).inc();
    EXPECT_EQ(&requests.with({"/users/{id}", "GET", "200"}), &users);  // stable child
    EXPECT_EQ(requests.size(), 3u);
    EXPECT_EQ(render(registry),
              "# HELP slipstream_http_requests_total Requests served.\n"
              "# TYPE slipstream_http_requests_total counter\n"
              "slipstream_http_requests_total{route=\"/health\",method=\"GET\",status=\"200\"} 2\n"
              "slipstream_http_requests_total{route=\"/users/{id}\",method=\"DELETE\",status=\"404\"} 2\n"
              "slipstream_http_requests_total{route=\"/users/{id}\",method=\"GET\",status=\"200\"} 3\n");
}

TEST(RegistryTest, LabelledGaugesAndEscaping) {
    Registry registry(RegistryOptions{.shards = 1});
    GaugeFamily& g = registry.gauge_family("queue_depth", "Depth of \"the\" queue\\n\nper worker.", {"worker"});
    g.with({"a\\b"}).set(1);
    g.with({"say \"x\""}).set(2);
    g.with({"multi\nline"}).set(3);
    DoubleGaugeFamily& d = registry.double_gauge_family("ratio", "Ratio.", {"kind", "zone"});
    d.with({"x", ""}).set(0.5);
    EXPECT_EQ(render(registry),
              "# HELP queue_depth Depth of \"the\" queue\\\\n\\nper worker.\n"
              "# TYPE queue_depth gauge\n"
              "queue_depth{worker=\"a\\\\b\"} 1\n"
              "queue_depth{worker=\"multi\\nline\"} 3\n"
              "queue_depth{worker=\"say \\\"x\\\"\"} 2\n"
              "# HELP ratio Ratio.\n"
              "# TYPE ratio gauge\n"
              "ratio{kind=\"x\",zone=\"\"} 0.5\n");
}

TEST(RegistryTest, DoubleCounterFamily) {
    Registry registry(RegistryOptions{.shards = 8});
    DoubleCounterFamily& f = registry.double_counter_family("cpu_seconds_total", "CPU.", {"mode"});
    f.with({"user"}).inc(1.25);
    f.with({"system"}).inc(0.5);
    EXPECT_EQ(render(registry),
              "# HELP cpu_seconds_total CPU.\n"
              "# TYPE cpu_seconds_total counter\n"
              "cpu_seconds_total{mode=\"system\"} 0.5\n"
              "cpu_seconds_total{mode=\"user\"} 1.25\n");
}

TEST(RegistryTest, CallbacksRunAtRender) {
    Registry registry(RegistryOptions{.shards = 1});
    int open = 3;
    bool available = true;
    registry.callback_gauge("slipstream_open_connections", "Open connections.",
                            [&]() -> std::optional<double> { return open; });
    registry.callback_counter("slipstream_widgets_total", "", [&]() -> std::optional<double> {
        if (!available) return std::nullopt;
        return 1e21;
    });
    EXPECT_EQ(render(registry),
              "# HELP slipstream_open_connections Open connections.\n"
              "# TYPE slipstream_open_connections gauge\n"
              "slipstream_open_connections 3\n"
              "# TYPE slipstream_widgets_total counter\n"
              "slipstream_widgets_total 1e+21\n");
    open = 7;
    available = false;
    EXPECT_EQ(render(registry),
              "# HELP slipstream_open_connections Open connections.\n"
              "# TYPE slipstream_open_connections gauge\n"
              "slipstream_open_connections 7\n"
              "# TYPE slipstream_widgets_total counter\n");
}

std::string error_of(const std::function<void()>& f);

TEST(RegistryTest, LabeledCallbacksListTheirSamplesAtRender) {
    Registry registry(RegistryOptions{.shards = 1});
    std::vector<LabeledValue> samples = {{{"b", "x\"y"}, 2}, {{"a", "z"}, 1.5}, {{"too few"}, 9}};
    registry.callback_counter_family("decisions_total", "Decisions.", {"capsule", "mode"}, [&] { return samples; });
    registry.callback_gauge_family("rate", "", {"capsule"}, [] { return std::vector<LabeledValue>{}; });
    EXPECT_EQ(render(registry),
              "# HELP decisions_total Decisions.\n"
              "# TYPE decisions_total counter\n"
              "decisions_total{capsule=\"a\",mode=\"z\"} 1.5\n"
              "decisions_total{capsule=\"b\",mode=\"x\\\"y\"} 2\n"
              "# TYPE rate gauge\n");
    EXPECT_EQ(error_of([&] { registry.callback_gauge_family("rate", "", {"c"}, {}); }),
              "metrics: cannot register gauge \"rate\": sample name \"rate\" is already taken");
    EXPECT_EQ(error_of([&] {
                  registry.callback_gauge_family("r2", "", {"c", "c"}, {});
              }),
              "metrics: metric \"r2\": label name \"c\" appears twice");
}

TEST(RegistryTest, RenderAppends) {
    Registry registry(RegistryOptions{.shards = 1});
    registry.gauge("g", "");
    std::string out = "prefix\n";
    registry.render(out);
    EXPECT_EQ(out, "prefix\n# TYPE g gauge\ng 0\n");
}

std::string error_of(const std::function<void()>& f) {
    try {
        f();
    } catch (const std::invalid_argument& e) {
        return e.what();
    }
    return "ok";
}

TEST(RegistryTest, RejectsBadRegistrations) {
    Registry registry(RegistryOptions{.shards = 1});
    registry.counter("taken_total", "");
    registry.histogram("lat", "", Buckets::latency());
    CounterFamily& fam = registry.counter_family("fam_total", "", {"a", "b"});
    struct Case {
        std::function<void()> call;
        std::string error;
    };
    const std::vector<Case> cases = {
        {[&] { registry.counter("taken_total", ""); },
         "metrics: cannot register counter \"taken_total\": sample name \"taken_total\" is already taken"},
        {[&] { registry.gauge("lat_count", ""); },
         "metrics: cannot register gauge \"lat_count\": sample name \"lat_count\" is already taken"},
        {[&] { registry.histogram("taken", "", Buckets({1})); }, "ok"},
        {[&] { registry.histogram("fam", "", Buckets({1})); }, "ok"},
        {[&] { registry.histogram("taken", "", Buckets({1})); },
         "metrics: cannot register histogram \"taken\": sample name \"taken\" is already taken"},
        {[&] { registry.histogram("x", "", Buckets({1})); }, "ok"},
        {[&] { registry.counter("x_sum", ""); },
         "metrics: cannot register counter \"x_sum\": sample name \"x_sum\" is already taken"},
        {[&] { registry.callback_gauge("x_bucket", "", [] { return 1.0; }); },
         "metrics: cannot register gauge \"x_bucket\": sample name \"x_bucket\" is already taken"},
        {[&] { registry.counter("bad-name", ""); },
         "metrics: invalid metric name \"bad-name\": '-' at position 3 (must match [a-zA-Z_:][a-zA-Z0-9_:]*)"},
        {[&] { registry.callback_counter("9lives", "", [] { return 1.0; }); },
         "metrics: invalid metric name \"9lives\": '9' at position 0 (must match [a-zA-Z_:][a-zA-Z0-9_:]*)"},
        {[&] {
             registry.counter_family("c_total", "", {"status", "status"});
         },
         "metrics: metric \"c_total\": label name \"status\" appears twice"},
        {[&] { registry.histogram_family("h", "", {"le"}, Buckets::latency()); },
         "metrics: metric \"h\": label name \"le\" is reserved for histogram buckets"},
        {[&] { registry.gauge_family("g", "", {"le"}); }, "ok"},
        {[&] { fam.with({"only one"}); }, "metrics: \"fam_total\" has 2 label(s) (a, b), got 1 value(s)"},
        {[&] {
             fam.with({"1", "2", "3"});
         },
         "metrics: \"fam_total\" has 2 label(s) (a, b), got 3 value(s)"},
    };
    for (const Case& c : cases)
        EXPECT_EQ(error_of(c.call), c.error);
    // A rejected registration leaves no trace in the output.
    EXPECT_EQ(render(registry).find("bad-name"), std::string::npos);
    EXPECT_EQ(fam.size(), 0u);
}

TEST(RegistryTest, RejectsBadShardCounts) {
    EXPECT_EQ(error_of([] { Registry r(RegistryOptions{.shards = 3}); }),
              "metrics: shard count must be a power of two in [1, 1024], got 3");
    EXPECT_EQ(error_of([] { Registry r(RegistryOptions{.shards = 2048}); }),
              "metrics: shard count must be a power of two in [1, 1024], got 2048");
}

TEST(RegistryTest, ManyChildrenSpanSeveralArenaChunks) {
    // 700 histograms of 19 cells need several 512-cell chunks; every child must still count on its own.
    Registry registry(RegistryOptions{.shards = 2});
    HistogramFamily& f = registry.histogram_family("h", "", {"i"}, Buckets::latency());
    std::vector<Histogram*> children;
    for (int i = 0; i < 700; ++i)
        children.push_back(&f.with({std::to_string(i)}));
    for (int i = 0; i < 700; ++i) {
        for (int k = 0; k <= i % 5; ++k)
            children[i]->observe(static_cast<std::uint64_t>(i));
    }
    for (int i = 0; i < 700; ++i) {
        HistogramSnapshot s = children[i]->snapshot();
        EXPECT_EQ(s.count, static_cast<std::uint64_t>(i % 5 + 1)) << i;
        EXPECT_EQ(s.sum, static_cast<std::uint64_t>(i) * (i % 5 + 1)) << i;
        EXPECT_EQ(s.counts[0], s.count) << i;  // all below 50 us
    }
}

}  // namespace
}  // namespace slipstream::metrics
