// The token administration routes: POST/GET /admin/tokens, GET/DELETE /admin/tokens/{id}.
#pragma once

#include <memory>
#include <string>

#include "agent/shared_state/token_store.h"
#include "slipstream/app.h"

namespace slipstream::agent::shared_state {

/// Mounts under `prefix` ("/admin/tokens"). Callers need a scoped credential with `admin` (every token) or
/// `tenant_admin:<t>` (tokens whose scopes are all read:<t> / write:<t>): 401 without credentials, 403 otherwise.
///   POST   {"principal", "scopes": [..] or "a b", "expiresIn": seconds?}  -> 201 the token row + "token" (shown once)
///   GET                                                                   -> 200 {"tokens": [rows the caller may see]}
///   GET    /{id}                                                          -> 200 the row (404 unknown or not visible)
///   DELETE /{id}                                                          -> 200 the revoked row (404 unknown)
/// A row: {"id", "principal", "scopes": [...], "createdAt", "expiresAt", "lastUsedAt", "revokedAt"} (unix seconds
/// or null). Bad bodies: 422 naming the field. Returns the routes' OpenAPI 3.1 document (token_openapi.h), served
/// at `openapi_path` when that is not empty.
std::string mount_token_routes(App& app, std::shared_ptr<TokenStore> tokens,
                               const std::string& prefix = "/admin/tokens", const std::string& openapi_path = "");

}  // namespace slipstream::agent::shared_state
