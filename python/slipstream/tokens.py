"""slipstream.tokens: scoped API tokens issued and revoked at runtime (src/agent/shared_state), and the rate limit's
buckets shared by every process and replica, for a Python app, as the server's --tokens and --rate-limit-store.

    from slipstream import App, Depends, Request
    from slipstream.security import RequireScopes

    app = App(auth="required", tokens="postgresql://db/app", admin_token=os.environ["SLIPSTREAM_ADMIN_TOKEN"],
              rate_limit="100/s", rate_limit_store="postgresql://db/app")

    @app.post("/items", dependencies=[Depends(RequireScopes("write"))])
    def create(request: Request): ...   # request.principal, request.scopes

POST/GET /admin/tokens and GET/DELETE /admin/tokens/{id} are answered in C++ (callers need the `admin` scope, the
bootstrap admin token's, or a `tenant_admin:<t>`); a token is shown once, kept as a SHA-256 digest, and checked by
the engine's auth on every request (401 once revoked or expired, within `refresh_ms` on other replicas). The routes
are listed in the app's /openapi.json.
"""

from __future__ import annotations

import json
import os
import weakref
from typing import Any

from . import _native

_OPTIONS = ("admin_token", "refresh_ms", "max_tokens", "max_ttl_s", "keep_revoked_s")


def _require(name: str) -> Any:
    found = getattr(_native, name, None)
    if found is None:
        raise RuntimeError(
            "this build of slipstream has no shared state (tokens and shared rate limits need SQLite and libpq)"
        )
    return found


class Tokens:
    """The token store (a SQLite file or a PostgreSQL URL, shared by replicas) and its refresher thread; give it to
    `App(tokens=...)` (or a URL there), which checks its tokens on every request and mounts its routes. Options are
    TokensOptions' (slipstream/shared_state.h), with the server's defaults: admin_token (the bootstrap credential,
    principal "admin" with scope "admin": "sst_" and 16+ characters; default: the SLIPSTREAM_ADMIN_TOKEN environment
    variable, else none), refresh_ms=1000, max_tokens=10000, max_ttl_s=31622400 (366 days), keep_revoked_s=86400.
    A bad option raises ValueError; a store that cannot be opened, RuntimeError. `openapi_path`: where GET also
    serves the routes' own OpenAPI document (None: only in the app's /openapi.json)."""

    def __init__(self, store: str, *, openapi_path: str | None = None, **options: Any) -> None:
        native = _require("NativeTokens")
        unknown = sorted(set(options) - set(_OPTIONS))
        if unknown:
            raise ValueError(f"unknown tokens option(s): {', '.join(unknown)}")
        if options.get("admin_token") is None:
            options.pop("admin_token", None)
            if os.environ.get("SLIPSTREAM_ADMIN_TOKEN"):
                options["admin_token"] = os.environ["SLIPSTREAM_ADMIN_TOKEN"]
        self.store = store
        self.openapi_path = openapi_path
        self.openapi: dict[str, Any] | None = None
        self.native = native({"store_url": store, **options})
        self._finalizer = weakref.finalize(self, self.native.close)

    def credentials(self) -> Any:
        """The engine object the app's `issued_credentials` option takes."""
        return self.native.credentials()

    def install_native(self, native_app: Any, runtime: Any, path: str) -> None:
        """App.mount's hook: the routes under `path` on the native app."""
        prefix = path.rstrip("/") or "/admin/tokens"
        self.openapi = json.loads(self.native.mount(native_app, prefix, self.openapi_path or ""))

    def close(self) -> None:
        """Writes the last-used times and stops the refresher (after the apps stopped)."""
        self._finalizer()


def open_rate_limit_store(url: str, *, timeout_ms: int = 250) -> Any:
    """The engine object of `App(rate_limit_store=...)`: the rate limit's buckets in a PostgreSQL table that every
    process and replica shares (GCRA per key, decided in the database: one statement per batch of requests).
    `timeout_ms` bounds a batch's statement (then rate_limit_store_failure: "local", "open" or "closed"). ValueError
    for a SQLite URL; RuntimeError when the database cannot be reached."""
    return _require("open_rate_limit_store")(url, timeout_ms)


__all__ = ["Tokens", "open_rate_limit_store"]
