// Reading /proc/self/stat, /proc/stat and /proc/self/fd for the process_* metrics.
#include "metrics/process_metrics.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/resource.h>
#include <unistd.h>

#include <charconv>
#include <string>

#include "metrics/registry.h"

namespace slipstream::metrics {
namespace detail {
namespace {

// Reads the whole file (procfs reports size 0, so read until EOF).
std::optional<std::string> read_file(const char* path) {
    int fd = ::open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return std::nullopt;
    std::string text;
    char buf[4096];
    for (;;) {
        ssize_t n = ::read(fd, buf, sizeof buf);
        if (n < 0) {
            ::close(fd);
            return std::nullopt;
        }
        if (n == 0) break;
        text.append(buf, static_cast<std::size_t>(n));
    }
    ::close(fd);
    return text;
}

// Splits off the next space-separated field of `rest`.
std::string_view next_field(std::string_view& rest) {
    std::size_t start = rest.find_first_not_of(' ');
    if (start == std::string_view::npos) {
        rest = {};
        return {};
    }
    rest.remove_prefix(start);
    std::size_t end = rest.find_first_of(" \n");
    std::string_view field = rest.substr(0, end);
    rest.remove_prefix(end == std::string_view::npos ? rest.size() : end);
    return field;
}

bool to_u64(std::string_view s, std::uint64_t* out) {
    auto res = std::from_chars(s.data(), s.data() + s.size(), *out);
    return res.ec == std::errc() && res.ptr == s.data() + s.size() && !s.empty();
}

std::optional<ProcStat> read_self_stat() {
    std::optional<std::string> text = read_file("/proc/self/stat");
    if (!text) return std::nullopt;
    return parse_proc_stat(*text);
}

double clock_ticks() {
    long ticks = ::sysconf(_SC_CLK_TCK);
    return ticks > 0 ? static_cast<double>(ticks) : 100.0;
}

std::optional<double> open_fds() {
    DIR* dir = ::opendir("/proc/self/fd");
    if (dir == nullptr) return std::nullopt;
    double count = 0;
    while (dirent* entry = ::readdir(dir)) {
        if (entry->d_name[0] != '.') ++count;
    }
    ::closedir(dir);
    return count - 1;  // the directory stream's own descriptor
}

}  // namespace

std::optional<ProcStat> parse_proc_stat(std::string_view text) {
    std::size_t paren = text.rfind(')');
    if (paren == std::string_view::npos) return std::nullopt;
    std::string_view rest = text.substr(paren + 1);
    // Field 3 (state) is the first after ')'; we need 14, 15 (utime, stime), 22, 23, 24.
    ProcStat stat;
    for (int field = 3; field <= 24; ++field) {
        std::string_view f = next_field(rest);
        if (f.empty()) return std::nullopt;
        std::uint64_t* target = nullptr;
        switch (field) {
            case 14:
                target = &stat.utime_ticks;
                break;
            case 15:
                target = &stat.stime_ticks;
                break;
            case 22:
                target = &stat.start_ticks;
                break;
            case 23:
                target = &stat.vsize_bytes;
                break;
            case 24:
                target = &stat.rss_pages;
                break;
            default:
                break;
        }
        if (target != nullptr && !to_u64(f, target)) return std::nullopt;
    }
    return stat;
}

std::optional<std::uint64_t> parse_boot_time(std::string_view proc_stat_text) {
    constexpr std::string_view kKey = "btime ";
    std::size_t at = proc_stat_text.starts_with(kKey) ? 0 : proc_stat_text.find("\nbtime ");
    if (at == std::string_view::npos) return std::nullopt;
    std::string_view rest = proc_stat_text.substr(at + (at == 0 ? 0 : 1) + kKey.size());
    std::uint64_t value = 0;
    if (!to_u64(next_field(rest), &value)) return std::nullopt;
    return value;
}

}  // namespace detail

void register_process_metrics(Registry& registry) {
    using detail::read_self_stat;
    registry.callback_counter("process_cpu_seconds_total", "Total user and system CPU time spent in seconds.",
                              []() -> std::optional<double> {
                                  auto s = read_self_stat();
                                  if (!s) return std::nullopt;
                                  return static_cast<double>(s->utime_ticks + s->stime_ticks) / detail::clock_ticks();
                              });
    registry.callback_gauge("process_resident_memory_bytes", "Resident memory size in bytes.",
                            []() -> std::optional<double> {
                                auto s = read_self_stat();
                                if (!s) return std::nullopt;
                                return static_cast<double>(s->rss_pages) * static_cast<double>(::sysconf(_SC_PAGESIZE));
                            });
    registry.callback_gauge("process_virtual_memory_bytes", "Virtual memory size in bytes.",
                            []() -> std::optional<double> {
                                auto s = read_self_stat();
                                if (!s) return std::nullopt;
                                return static_cast<double>(s->vsize_bytes);
                            });
    registry.callback_gauge("process_open_fds", "Number of open file descriptors.", detail::open_fds);
    registry.callback_gauge("process_max_fds", "Maximum number of open file descriptors.",
                            []() -> std::optional<double> {
                                rlimit limit{};
                                if (::getrlimit(RLIMIT_NOFILE, &limit) != 0) return std::nullopt;
                                return static_cast<double>(limit.rlim_cur);
                            });
    registry.callback_gauge("process_start_time_seconds", "Start time of the process since unix epoch in seconds.",
                            []() -> std::optional<double> {
                                auto s = read_self_stat();
                                auto proc_stat = detail::read_file("/proc/stat");
                                if (!s || !proc_stat) return std::nullopt;
                                auto boot = detail::parse_boot_time(*proc_stat);
                                if (!boot) return std::nullopt;
                                return static_cast<double>(*boot) +
                                       static_cast<double>(s->start_ticks) / detail::clock_ticks();
                            });
}

}  // namespace slipstream::metrics
