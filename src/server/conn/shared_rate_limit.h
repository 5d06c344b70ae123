// SharedRateLimit: the rate limit's buckets in a RateLimitStore shared by processes, batched, with a local fast path.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "base/clock.h"
#include "metrics/registry.h"
#include "policy/ratelimit/decision.h"
#include "policy/ratelimit/rate.h"
#include "slipstream/rate_limit_store.h"

namespace slipstream::server {

/// What a shared check decided.
enum class SharedVerdict : std::uint8_t {
    kDecided,      // `decision` says allowed or refused (by the store, the local fast path or the local fallback)
    kUnavailable,  // the store could not answer and the failure mode is "closed": answer 503
};

struct SharedResult {
    SharedVerdict verdict = SharedVerdict::kDecided;
    policy::ratelimit::Decision decision;
};

/// Shared by every I/O thread of one server; thread-safe. check() sends the request to the store at once when fewer
/// than `max_in_flight` statements are out, else queues it; each answer sends what queued meanwhile as one batch
/// (at most `max_batch` keys, a key's requests counted together), so a loaded process makes one round trip per
/// batch, not per request. A key the store refused is refused here, without asking, until its retry time
/// (measured from the request's arrival, so never later than the store's own answer would change). Made with
/// std::make_shared: a batch's answer keeps the object alive.
class SharedRateLimit : public std::enable_shared_from_this<SharedRateLimit> {
  public:
    using Done = std::function<void(SharedResult)>;
    /// Called for each request when the store fails, in the "local" mode: this process's own limiter.
    using Fallback = std::function<policy::ratelimit::Decision(std::string_view key, base::MonoNanos now,
                                                               const policy::ratelimit::Rate& rate)>;
    enum class Failure : std::uint8_t { kLocal, kOpen, kClosed };

    /// Throws std::invalid_argument "rate-limit-store-failure: ..." for a mode other than local, open or closed.
    /// After a failed batch, requests arriving within `retry_ns` of it get the failure mode at once, without
    /// asking the store (an outage costs each request nothing then); 0: every request asks.
    SharedRateLimit(std::shared_ptr<RateLimitStore> store, std::string_view failure, std::size_t max_batch,
                    std::size_t max_in_flight, std::size_t max_blocked, std::int64_t retry_ns, Fallback fallback,
                    metrics::Registry& registry);

    /// The local fast path: true with a refusal when `key` was refused by the store and its retry time has not come.
    bool refused_locally(std::string_view key, base::MonoNanos now, std::uint64_t burst,
                         policy::ratelimit::Decision& out);
    /// Counts one request of `key` (printable text) at `now` against `rate` and `burst` in the store; `done` runs
    /// once, on the store's thread or (sent at once) this one.
    void check(std::string key, const policy::ratelimit::Rate& rate, std::uint64_t burst, base::MonoNanos now,
               Done done);

  private:
    struct Waiter {
        std::string key;
        policy::ratelimit::Rate rate;
        std::uint64_t burst;
        base::MonoNanos now;
        Done done;
    };
    // Takes up to max_batch_ keys' waiters from the queue (mutex held); empty when nothing waits.
    std::vector<Waiter> take_batch();
    void send(std::vector<Waiter> batch);
    void answer(std::vector<Waiter>& batch, std::vector<std::size_t>& group, std::vector<std::uint32_t>& rank, bool ok,
                const std::vector<RateLimitOutcome>& outcomes);
    void fail(Waiter& w);
    void block(const std::string& key, base::MonoNanos until);

    std::shared_ptr<RateLimitStore> store_;
    Failure failure_ = Failure::kLocal;
    std::size_t max_batch_;
    std::size_t max_in_flight_;
    std::size_t max_blocked_;
    std::int64_t retry_ns_;
    std::atomic<base::MonoNanos> down_until_{0};  // requests before it get the failure mode without asking
    Fallback fallback_;

    std::mutex mutex_;
    std::vector<Waiter> queue_;
    std::size_t in_flight_ = 0;
    std::unordered_map<std::string, base::MonoNanos> blocked_;  // key -> refused until (monotonic)

    metrics::Counter* round_trips_;     // slipstream_rate_limit_store_round_trips_total
    metrics::Counter* errors_;          // slipstream_rate_limit_store_errors_total (failed batches)
    metrics::Counter* local_refusals_;  // slipstream_rate_limit_store_local_refusals_total (the fast path)
    metrics::Counter* bypassed_;        // slipstream_rate_limit_store_bypassed_total (failure mode while down)
};

}  // namespace slipstream::server
