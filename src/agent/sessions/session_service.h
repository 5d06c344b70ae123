// The public SessionsOptions (slipstream/sessions.h) as the store's options: shared by SessionService and the
// servers' --sessions (src/app/sessions.cpp).
#pragma once

#include "agent/sessions/session_store.h"
#include "slipstream/sessions.h"

namespace slipstream::agent::sessions {

/// Limits, durability and the write-behind queue (the store's clock stays the system's).
SessionStoreOptions store_options(const SessionsOptions& o);

}  // namespace slipstream::agent::sessions
