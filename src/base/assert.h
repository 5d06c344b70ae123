// The three assertion levels: ASSERT (debug invariant), BUG (log+count in release), CHECK (always fatal).
#pragma once

#include <atomic>
#include <cstdint>

namespace slipstream::base {

/// Number of SLIPSTREAM_BUG hits in this process (exported as a metric).
std::uint64_t bug_count();

namespace detail {
[[noreturn]] void check_failed(const char* expr, const char* file, int line);
void bug_hit(const char* expr, const char* file, int line);
}  // namespace detail

}  // namespace slipstream::base

#ifdef NDEBUG
#define SLIPSTREAM_ASSERT(cond) ((void)0)
#else
#define SLIPSTREAM_ASSERT(cond) ((cond) ? (void)0 : ::slipstream::base::detail::check_failed(#cond, __FILE__, __LINE__))
#endif

/// An internal invariant broken by our own code: aborts in debug, logs and counts in release.
#define SLIPSTREAM_BUG(cond) ((cond) ? (void)0 : ::slipstream::base::detail::bug_hit(#cond, __FILE__, __LINE__))

/// A condition that can only fail on an impossible syscall failure or OOM: always fatal.
#define SLIPSTREAM_CHECK(cond) ((cond) ? (void)0 : ::slipstream::base::detail::check_failed(#cond, __FILE__, __LINE__))
