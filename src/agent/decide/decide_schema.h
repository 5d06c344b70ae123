// The decision store's tables (capsules and their spec versions, decisions, rewards, learning updates, model
// snapshots), created at start.
#pragma once

#include "base/status.h"
#include "store/database/database.h"

namespace slipstream::agent::decide {

/// The schema version this build writes and reads.
inline constexpr std::int64_t kDecideSchemaVersion = 2;

/// Creates the tables and indexes the database lacks and records the version in decide_schema_version (blocking:
/// call at start-up). kInvalidArgument when the database holds a newer version than this build knows.
base::Status migrate_decide_schema(store::Database& db);

}  // namespace slipstream::agent::decide
