// Which shard of a sharded metric the calling thread writes to: one thread-local index, assigned once.
#pragma once

#include <cstdint>

namespace slipstream::metrics {

/// Pins the calling thread to shard `index` (reduced modulo each registry's shard count).
/// Optional: a thread that never calls it gets the next index round-robin on its first metric write.
/// The server calls it once at the start of I/O thread i with i, so that up to `shards` I/O threads
/// never share a cache line. Any thread may call it, at any time; it affects only the calling thread.
void set_this_thread_shard(std::uint32_t index);

namespace detail {

/// Set bit marks "assigned"; the low bits hold the index. Every shard mask is below this bit.
inline constexpr std::uint32_t kShardAssigned = 0x8000'0000u;

/// Zero until the thread's first metric write (constant-initialised: no TLS guard on access).
inline thread_local std::uint32_t tls_shard = 0;

/// Cold path: takes the next round-robin index for the calling thread.
std::uint32_t assign_this_thread_shard();

/// The calling thread's shard index, with kShardAssigned set; callers mask it with the registry's shard mask.
inline std::uint32_t this_thread_shard() {
    std::uint32_t s = tls_shard;
    if (s == 0) [[unlikely]]
        s = assign_this_thread_shard();
    return s;
}

}  // namespace detail
}  // namespace slipstream::metrics
