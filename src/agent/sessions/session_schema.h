// The session tables and their migrations, applied at start and recorded in agent_schema_version.
#pragma once

#include <memory>
#include <string_view>
#include <vector>

#include "agent/sessions/transaction_runner.h"
#include "base/status.h"
#include "store/database/database.h"

namespace slipstream::agent::sessions {

/// The schema version this build writes and reads.
inline constexpr std::int64_t kSessionSchemaVersion = 3;

/// A table's migrations: `steps[i]` holds the statements that bring version i to version i + 1 (the latest version
/// is steps.size()), recorded in `version_table`; `what` names the schema in errors ("session").
struct Migrations {
    std::string_view version_table;
    std::string_view what;
    const std::vector<std::vector<const char*>>& steps;
};

/// Applies the steps the database lacks, each in one transaction with its version row (blocking: call at start-up).
/// Replicas starting together are serialised (PostgreSQL: a lock on the version table; SQLite: its write lock).
/// kInvalidArgument when the database holds a newer version than `steps` reach; the database's error otherwise.
base::Status apply_migrations(store::Database& db, TransactionRunner& runner, const Migrations& migrations);

/// Applies the migrations the database lacks, each in one transaction with its version row (blocking: call at
/// start-up). Replicas starting together are serialised (PostgreSQL: a table lock; SQLite: its write lock).
/// kInvalidArgument when the database holds a newer version than this build knows; the database's error
/// otherwise.
base::Status migrate_session_schema(store::Database& db, TransactionRunner& runner);

}  // namespace slipstream::agent::sessions
