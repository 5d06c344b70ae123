// SyncStatements: statements answered at once on a held connection's own thread (DbSession::run_on_thread).
#pragma once

#include <string_view>

#include "store/db_result.h"
#include "store/value.h"

namespace slipstream::store {

/// A held SQLite connection seen from work running on its thread: each statement runs and is answered before
/// query() returns, so many statements cost one thread hop in all, not one each. Valid only inside that work;
/// not thread-safe.
class SyncStatements {
  public:
    virtual ~SyncStatements() = default;
    /// One statement with `params` bound to ?1..?n; errors as Database::query's.
    virtual QueryResult query(std::string_view sql, const Params& params) = 0;
};

}  // namespace slipstream::store
