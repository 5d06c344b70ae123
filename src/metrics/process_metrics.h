// Standard process_* metrics (CPU, memory, file descriptors, start time) read from /proc at scrape time.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace slipstream::metrics {

class Registry;

/// Registers, as callback metrics evaluated at every render:
///   process_cpu_seconds_total (counter), process_resident_memory_bytes, process_virtual_memory_bytes,
///   process_open_fds, process_max_fds, process_start_time_seconds (gauges).
/// A value that cannot be read (no /proc) is left out of that scrape. Throws std::invalid_argument when a
/// name is already registered. Linux only.
void register_process_metrics(Registry& registry);

namespace detail {

/// The fields of /proc/<pid>/stat the process metrics use.
struct ProcStat {
    std::uint64_t utime_ticks = 0;
    std::uint64_t stime_ticks = 0;
    std::uint64_t start_ticks = 0;  // since boot
    std::uint64_t vsize_bytes = 0;
    std::uint64_t rss_pages = 0;
};

/// Parses the text of /proc/<pid>/stat; std::nullopt when it is malformed. The command name (field 2) may
/// hold spaces and parentheses, so fields are counted from the last ')'.
std::optional<ProcStat> parse_proc_stat(std::string_view text);

/// The `btime` (boot time, Unix seconds) line of /proc/stat; std::nullopt when absent.
std::optional<std::uint64_t> parse_boot_time(std::string_view proc_stat_text);

}  // namespace detail
}  // namespace slipstream::metrics
