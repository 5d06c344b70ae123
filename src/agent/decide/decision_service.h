// The public DecisionsOptions (slipstream/decisions.h) as the store's and the routes' options: shared by
// DecisionService and the servers' --decide (src/app/decide.cpp).
#pragma once

#include "agent/decide/decide_routes.h"
#include "agent/decide/decide_store.h"
#include "base/result.h"
#include "slipstream/decisions.h"

namespace slipstream::agent::decide {

/// Limits and write-behind mode (the store's clock stays the system's).
DecideStoreOptions store_options(const DecisionsOptions& o);
/// Metrics, access (the file read now) and rate limits; kInvalidArgument / kNotFound for a bad file or rate.
base::Result<DecideRoutesOptions> routes_options(const DecisionsOptions& o);

}  // namespace slipstream::agent::decide
