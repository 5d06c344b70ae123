// Failure paths of the assertion macros.
#include "base/assert.h"

#include <cstdlib>
#include <string>

#include "base/log.h"

namespace slipstream::base {
namespace {
std::atomic<std::uint64_t> g_bugs{0};
}  // namespace

std::uint64_t bug_count() {
    return g_bugs.load(std::memory_order_relaxed);
}

namespace detail {

void check_failed(const char* expr, const char* file, int line) {
    log_message(LogLevel::kFatal, std::string("check failed: ") + expr + " at " + file + ":" + std::to_string(line));
    std::abort();
}

void bug_hit(const char* expr, const char* file, int line) {
    g_bugs.fetch_add(1, std::memory_order_relaxed);
    log_message(LogLevel::kError, std::string("bug: ") + expr + " at " + file + ":" + std::to_string(line));
#ifndef NDEBUG
    std::abort();
#endif
}

}  // namespace detail
}  // namespace slipstream::base
