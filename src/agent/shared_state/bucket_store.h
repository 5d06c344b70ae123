// DatabaseBucketStore: the engine's rate-limit buckets (GCRA) in a PostgreSQL table shared by every replica.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>

#include "base/result.h"
#include "slipstream/rate_limit_store.h"
#include "store/database/database.h"

namespace slipstream::agent::shared_state {

/// One statement per batch: every key's requests are decided atomically in the database (INSERT ... ON CONFLICT DO
/// UPDATE, row-locked), in exact integer arithmetic (numeric), on the database's clock, so processes on several hosts
/// share one limit exactly. Keys whose bucket is full again are deleted now and then (at most once a minute).
class DatabaseBucketStore final : public RateLimitStore {
  public:
    /// Creates the table when missing (blocking: call at start-up). kInvalidArgument on SQLite (its file is not
    /// shared by replicas: the in-process limiter is the right one there); the database's error otherwise.
    static base::Result<std::shared_ptr<DatabaseBucketStore>> open(std::shared_ptr<store::Database> db,
                                                                   std::int64_t timeout_ns);
    DatabaseBucketStore(std::shared_ptr<store::Database> db, std::int64_t timeout_ns)
        : db_(std::move(db)), timeout_ns_(timeout_ns) {}

    void check(std::vector<RateLimitCheck> checks, Done done) override;

  private:
    void maybe_sweep();

    std::shared_ptr<store::Database> db_;
    std::int64_t timeout_ns_;
    std::atomic<std::int64_t> last_sweep_ns_{0};
};

}  // namespace slipstream::agent::shared_state
