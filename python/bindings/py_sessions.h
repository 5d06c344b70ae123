// NativeSessions: slipstream::SessionService (durable agent sessions) for slipstream.sessions.
#pragma once

#include <nanobind/nanobind.h>

namespace slipstream::python {

/// Adds `NativeSessions(options: dict)` to the module: opens the session store (the GIL released) and starts its
/// sweeper. Keys: store_url (required) and every other SessionsOptions field by name (slipstream/sessions.h); an
/// unknown key or a bad value raises ValueError; a store that cannot be opened raises RuntimeError.
/// `mount(native_app, prefix, openapi_path) -> str` registers the routes (and metrics) before the app starts and
/// returns their OpenAPI document. Operations (`create`, `append`, `events`, `state`, `update_state`,
/// `patch_state`) take a token first: a token > 0 answers later through `drain()` as (token, True, b"<status>
/// <version> <body>") once `event_fd()` is readable (the database's thread never takes the GIL); token 0 blocks
/// (the GIL released) and returns (status, version, body). `close()` writes what is queued and closes the store.
void register_sessions(nanobind::module_& m);

}  // namespace slipstream::python
