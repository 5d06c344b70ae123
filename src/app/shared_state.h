// open_shared_state(): the shared rate-limit buckets and the scoped API tokens (--rate-limit-store, --tokens).
#pragma once

#include <memory>
#include <string>

#include "agent/shared_state/token_store.h"
#include "app/config.h"
#include "base/result.h"
#include "slipstream/app.h"

namespace slipstream::app {

/// What open_shared_state() opened; the token store's thread stops (after writing the last-used times) with it.
struct SharedState {
    std::shared_ptr<agent::shared_state::TokenStore> tokens;
    std::string openapi_path;  // --token-openapi
    ~SharedState();
};

/// Before the App is made: with `--rate-limit-store store`, the bucket table in --store (which must be PostgreSQL)
/// becomes `config.server.rate_limit_store`; with `--tokens`, the token store in --store (or tokens.db under
/// --data-dir) becomes `config.server.issued_credentials`. kInvalidArgument for a store that cannot share buckets;
/// the database's error when it cannot be reached at start.
base::Result<std::unique_ptr<SharedState>> open_shared_state(Config& config);

/// After: mounts /admin/tokens (and its OpenAPI document at --token-openapi) when tokens are on.
void mount_shared_state(SharedState& state, App& app);

}  // namespace slipstream::app
