// Round-robin assignment of thread shard indexes.
#include "metrics/thread_shard.h"

#include <atomic>

namespace slipstream::metrics {
namespace {
// Process-wide by nature: it numbers threads, which are process-wide. It holds no metric state.
std::atomic<std::uint32_t> next_shard{0};
}  // namespace

void set_this_thread_shard(std::uint32_t index) {
    detail::tls_shard = (index & ~detail::kShardAssigned) | detail::kShardAssigned;
}

namespace detail {
std::uint32_t assign_this_thread_shard() {
    std::uint32_t index = next_shard.fetch_add(1, std::memory_order_relaxed) & ~kShardAssigned;
    tls_shard = index | kShardAssigned;
    return tls_shard;
}
}  // namespace detail
}  // namespace slipstream::metrics
