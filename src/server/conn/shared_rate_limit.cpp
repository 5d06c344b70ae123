// SharedRateLimit: batching, the answers' arithmetic, the fast path and the failure modes.
#include "server/conn/shared_rate_limit.h"

#include <algorithm>
#include <stdexcept>
#include <utility>

#include "policy/ratelimit/batch_decision.h"

namespace slipstream::server {

SharedRateLimit::SharedRateLimit(std::shared_ptr<RateLimitStore> store, std::string_view failure, std::size_t max_batch,
                                 std::size_t max_in_flight, std::size_t max_blocked, std::int64_t retry_ns,
                                 Fallback fallback, metrics::Registry& registry)
    : store_(std::move(store)),
      max_batch_(max_batch == 0 ? 1 : max_batch),
      max_in_flight_(max_in_flight == 0 ? 1 : max_in_flight),
      max_blocked_(max_blocked),
      retry_ns_(retry_ns),
      fallback_(std::move(fallback)) {
    if (failure == "local")
        failure_ = Failure::kLocal;
    else if (failure == "open")
        failure_ = Failure::kOpen;
    else if (failure == "closed")
        failure_ = Failure::kClosed;
    else
        throw std::invalid_argument("rate-limit-store-failure: must be local, open or closed, not '" +
                                    std::string(failure) + "'");
    round_trips_ = &registry.counter("slipstream_rate_limit_store_round_trips_total",
                                     "Statements sent to the shared rate-limit store (each decides a batch).");
    errors_ = &registry.counter("slipstream_rate_limit_store_errors_total",
                                "Batches the shared rate-limit store could not decide (rate-limit-store-failure "
                                "applied to their requests).");
    local_refusals_ = &registry.counter("slipstream_rate_limit_store_local_refusals_total",
                                        "Requests refused without asking the store: their key was refused and its "
                                        "retry time has not come.");
    bypassed_ = &registry.counter("slipstream_rate_limit_store_bypassed_total",
                                  "Requests given rate-limit-store-failure without asking the store, shortly after "
                                  "it failed (rate-limit-store-retry).");
}

bool SharedRateLimit::refused_locally(std::string_view key, base::MonoNanos now, std::uint64_t burst,
                                      policy::ratelimit::Decision& out) {
    std::lock_guard lock(mutex_);
    if (blocked_.empty()) return false;
    auto it = blocked_.find(std::string(key));
    if (it == blocked_.end()) return false;
    if (it->second <= now) {
        blocked_.erase(it);
        return false;
    }
    out = {};
    out.limit = burst;
    out.retry_after_ns = it->second - now;
    out.reset_ns = out.retry_after_ns;
    local_refusals_->inc();
    return true;
}

void SharedRateLimit::block(const std::string& key, base::MonoNanos until) {
    // Called with the mutex held. Full: drop the keys whose time has come; still full: do not remember this one
    // (its next request asks the store, which refuses it exactly).
    if (blocked_.size() >= max_blocked_ && !blocked_.contains(key)) {
        const base::MonoNanos now = base::mono_now();
        std::erase_if(blocked_, [now](const auto& e) { return e.second <= now; });
        if (blocked_.size() >= max_blocked_) return;
    }
    base::MonoNanos& at = blocked_[key];
    if (until > at) at = until;
}

void SharedRateLimit::check(std::string key, const policy::ratelimit::Rate& rate, std::uint64_t burst,
                            base::MonoNanos now, Done done) {
    if (now < down_until_.load(std::memory_order_relaxed)) {
        bypassed_->inc();
        Waiter w{std::move(key), rate, burst, now, std::move(done)};
        fail(w);
        return;
    }
    std::vector<Waiter> batch;
    {
        std::lock_guard lock(mutex_);
        queue_.push_back(Waiter{std::move(key), rate, burst, now, std::move(done)});
        if (in_flight_ >= max_in_flight_) return;  // an answer sends it with the others waiting then
        batch = take_batch();
        ++in_flight_;
    }
    send(std::move(batch));
}

std::vector<SharedRateLimit::Waiter> SharedRateLimit::take_batch() {
    std::vector<Waiter> batch;
    const std::size_t n = std::min(queue_.size(), max_batch_);
    batch.reserve(n);
    for (std::size_t i = 0; i < n; ++i)
        batch.push_back(std::move(queue_[i]));
    queue_.erase(queue_.begin(), queue_.begin() + static_cast<std::ptrdiff_t>(n));
    return batch;
}

void SharedRateLimit::send(std::vector<Waiter> batch) {
    // One check per key, its requests counted together in arrival order: `group` maps a waiter to its check,
    // `rank` is its place among its key's requests.
    std::vector<RateLimitCheck> checks;
    std::vector<std::size_t> group(batch.size());
    std::vector<std::uint32_t> rank(batch.size());
    std::unordered_map<std::string_view, std::size_t> index;
    for (std::size_t i = 0; i < batch.size(); ++i) {
        Waiter& w = batch[i];
        auto [it, fresh] = index.emplace(w.key, checks.size());
        if (fresh) {
            RateLimitCheck c;
            c.key = w.key;
            c.interval_num = w.rate.interval_num();
            c.interval_den = w.rate.interval_den();
            c.burst = w.burst;
            c.count = 0;
            checks.push_back(std::move(c));
        }
        group[i] = it->second;
        rank[i] = checks[it->second].count++;
    }
    round_trips_->inc();
    auto shared = std::make_shared<std::vector<Waiter>>(std::move(batch));
    auto groups = std::make_shared<std::vector<std::size_t>>(std::move(group));
    auto ranks = std::make_shared<std::vector<std::uint32_t>>(std::move(rank));
    store_->check(std::move(checks),
                  [self = shared_from_this(), shared, groups, ranks](bool ok, std::vector<RateLimitOutcome> outcomes) {
                      self->answer(*shared, *groups, *ranks, ok, outcomes);
                      std::vector<Waiter> next;
                      {
                          std::lock_guard lock(self->mutex_);
                          next = self->take_batch();
                          if (next.empty()) {
                              --self->in_flight_;
                              return;
                          }
                      }
                      self->send(std::move(next));
                  });
}

void SharedRateLimit::fail(Waiter& w) {
    SharedResult r;
    switch (failure_) {
        case Failure::kLocal:
            r.decision = fallback_(w.key, w.now, w.rate);
            break;
        case Failure::kOpen:
            r.decision.allowed = true;
            r.decision.limit = w.burst;
            break;
        case Failure::kClosed:
            r.verdict = SharedVerdict::kUnavailable;
            break;
    }
    w.done(r);
}

void SharedRateLimit::answer(std::vector<Waiter>& batch, std::vector<std::size_t>& group,
                             std::vector<std::uint32_t>& rank, bool ok, const std::vector<RateLimitOutcome>& outcomes) {
    if (!ok || outcomes.size() <= (group.empty() ? 0 : *std::max_element(group.begin(), group.end()))) {
        errors_->inc();
        if (retry_ns_ > 0) {
            base::MonoNanos latest = 0;
            for (const Waiter& w : batch)
                latest = std::max(latest, w.now);
            down_until_.store(latest + retry_ns_, std::memory_order_relaxed);
        }
        for (Waiter& w : batch)
            fail(w);
        return;
    }
    for (std::size_t i = 0; i < batch.size(); ++i) {
        Waiter& w = batch[i];
        const RateLimitOutcome& o = outcomes[group[i]];
        SharedResult r;
        r.decision = policy::ratelimit::batch_decision(w.rate, w.burst, o.allowed, o.tat_ahead_ns, rank[i]);
        if (!r.decision.allowed) {
            std::lock_guard lock(mutex_);
            block(w.key, w.now + r.decision.retry_after_ns);
        }
        w.done(r);
    }
}

}  // namespace slipstream::server
