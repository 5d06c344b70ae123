// NativeTokens and open_rate_limit_store: slipstream/shared_state.h for slipstream.tokens.
#pragma once

#include <nanobind/nanobind.h>

namespace slipstream::python {

/// Adds to the module:
/// - `NativeTokens(options: dict)`: opens the token store (the GIL released); keys store_url (required),
///   admin_token, refresh_ms, max_tokens, max_ttl_s, keep_revoked_s (TokensOptions); a bad key or value raises
///   ValueError, a store that cannot be opened RuntimeError. `credentials()` -> the capsule that the app's
///   `issued_credentials` option takes (server_options_from_dict.h); `mount(native_app, prefix, openapi_path) ->
///   str` registers /admin/tokens before the app starts and returns the routes' OpenAPI document; `close()`.
/// - `open_rate_limit_store(url, timeout_ms)` -> the capsule the `rate_limit_store` option takes (PostgreSQL
///   only: ValueError for SQLite or a bad timeout, RuntimeError when the database cannot be reached).
void register_shared_state(nanobind::module_& m);

}  // namespace slipstream::python
