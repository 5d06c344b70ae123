// process_* metrics: /proc parsing from fixed text, and live values read back through render().
#include "metrics/process_metrics.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <ctime>
#include <optional>
#include <string>

#include "metrics/exposition_reader.h"
#include "metrics/registry.h"

namespace slipstream::metrics {
namespace {

TEST(ProcessMetricsTest, ParsesProcStat) {
    // comm holds spaces and a ')' : fields are counted from the last ')'.
    const std::string stat =
        "4242 (my (odd) name) S 1 4242 4242 0 -1 4194560 1000 0 0 0 "
        "150 25 0 0 20 0 3 0 987654 123456789 2048 18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 17 1 0 0 0 0 0\n";
    std::optional<detail::ProcStat> s = detail::parse_proc_stat(stat);
    ASSERT_TRUE(s.has_value());
    EXPECT_EQ(s->utime_ticks, 150u);
    EXPECT_EQ(s->stime_ticks, 25u);
    EXPECT_EQ(s->start_ticks, 987654u);
    EXPECT_EQ(s->vsize_bytes, 123456789u);
    EXPECT_EQ(s->rss_pages, 2048u);
}

TEST(ProcessMetricsTest, RejectsMalformedProcStat) {
    const std::string cases[] = {
        "", "4242 no parenthesis S 1",
        "4242 (x) S 1 2 3",                                                          // too few fields
        "4242 (x) S 1 4242 4242 0 -1 4194560 1000 0 0 0 abc 25 0 0 20 0 3 0 1 2 3",  // utime not a number
    };
    for (const std::string& c : cases)
        EXPECT_FALSE(detail::parse_proc_stat(c).has_value()) << c;
}

TEST(ProcessMetricsTest, ParsesBootTime) {
    EXPECT_EQ(detail::parse_boot_time("cpu  1 2 3\nintr 5\nbtime 1700000000\nprocesses 9\n"), 1700000000u);
    EXPECT_EQ(detail::parse_boot_time("btime 12\n"), 12u);
    EXPECT_EQ(detail::parse_boot_time("cpu 1\nnobtime 5\n"), std::nullopt);
    EXPECT_EQ(detail::parse_boot_time("btime x\n"), std::nullopt);
}

// Reads one unlabelled sample back from a render.
double sample(const Registry& registry, const std::string& name) {
    std::string out;
    registry.render(out);
    auto parsed = test_util::parse_exposition(out);
    if (!parsed.is_ok()) ADD_FAILURE() << parsed.status().to_string();
    if (!parsed.is_ok()) return -1;
    for (const test_util::ParsedFamily& f : *parsed) {
        if (f.name == name && f.samples.size() == 1) return f.samples[0].value;
    }
    ADD_FAILURE() << "no sample " << name;
    return -1;
}

TEST(ProcessMetricsTest, LiveValues) {
    if (access("/proc/self/stat", R_OK) != 0) GTEST_SKIP() << "no /proc on this system";
    Registry registry(RegistryOptions{.shards = 1});
    register_process_metrics(registry);

    const double fds = sample(registry, "process_open_fds");
    int fd = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
    ASSERT_GE(fd, 0);
    EXPECT_EQ(sample(registry, "process_open_fds"), fds + 1);
    ::close(fd);
    EXPECT_EQ(sample(registry, "process_open_fds"), fds);

    EXPECT_GT(sample(registry, "process_resident_memory_bytes"), 0);
    EXPECT_GE(sample(registry, "process_virtual_memory_bytes"), sample(registry, "process_resident_memory_bytes"));
    EXPECT_GE(sample(registry, "process_max_fds"), fds);
    EXPECT_GE(sample(registry, "process_cpu_seconds_total"), 0);
    const double start = sample(registry, "process_start_time_seconds");
    EXPECT_LE(start, static_cast<double>(std::time(nullptr)) + 1);
    EXPECT_GT(start, 1'000'000'000.0);  // after 2001: a Unix time, not seconds since boot
}

TEST(ProcessMetricsTest, RegisteringTwiceIsRejected) {
    Registry registry(RegistryOptions{.shards = 1});
    register_process_metrics(registry);
    EXPECT_THROW(register_process_metrics(registry), std::invalid_argument);
}

}  // namespace
}  // namespace slipstream::metrics
