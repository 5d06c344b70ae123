"""slipstream.decide: the learning decision service (src/agent/decide) on a Python app, its off-policy replay for
CI, and ModelRouter, a client-side helper that picks a model per request and reports the outcome as a reward.

    from slipstream import App
    from slipstream.decide import Decisions

    app = App()
    app.mount("/", Decisions("sqlite:///var/lib/app/decide.db"))   # or: app.decisions("sqlite:///...")

Every decision route runs in C++ (JSON Schema checks, the model, the store): no request takes the GIL. The routes
are under /v1/tenants/{tenant}/jobs/{job}/capsules/{capsule}/ (spec, decide, reward, their batches, decisions, model,
evaluate, promote); their OpenAPI document is `Decisions.openapi` once mounted.
"""

from __future__ import annotations

import asyncio
import json
import time
import urllib.error
import urllib.request
import weakref
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from slipstream import _native

_NATIVE_OPTIONS = (
    "buffered_decisions",
    "max_capsules",
    "max_actions",
    "max_dimension",
    "max_features",
    "max_spec_bytes",
    "max_model_bytes",
    "max_context_bytes",
    "max_batch",
    "shadow_queue",
    "shadow_flush_ms",
    "shadow_batch",
    "snapshot_every",
    "sweep_interval_ms",
    "max_page",
    "max_evaluate",
    "max_resamples",
    "promote_min_samples",
    "metrics_capsules",
    "metrics",
    "access_file",
    "default_access",
    "decide_rate_limit",
    "reward_rate_limit",
    "rate_limit_burst",
    "rate_limit_max_keys",
)


def _require_native() -> None:
    if not hasattr(_native, "NativeDecisions"):
        raise RuntimeError("this build of slipstream has no decision service (it needs SQLite and libpq)")


class Decisions:
    """The decision store (SQLite file or PostgreSQL URL) with its sweeper; mount it on an App with
    `app.mount(prefix, decisions)` (or `app.decisions(store, ...)`). Options are DecisionsOptions' fields
    (slipstream/decisions.h) with the server's defaults, e.g. max_actions=64, shadow_queue=10000,
    access_file=..., decide_rate_limit="1000/s". A bad option raises ValueError; a store that cannot be opened,
    RuntimeError. `openapi_path`: where GET serves the routes' OpenAPI document (None: not served)."""

    def __init__(self, store: str, *, openapi_path: str | None = None, **options: Any) -> None:
        _require_native()
        unknown = sorted(set(options) - set(_NATIVE_OPTIONS))
        if unknown:
            raise ValueError(f"unknown decisions option(s): {', '.join(unknown)}")
        self.store = store
        self.openapi_path = openapi_path
        self.openapi: dict[str, Any] | None = None
        self.native = _native.NativeDecisions({"store_url": store, **options})
        # Queued decisions and model snapshots are written when this object goes, at the latest at exit.
        self._finalizer = weakref.finalize(self, self.native.close)

    def install_native(self, native_app: Any, runtime: Any, path: str) -> None:
        """App.mount's hook: the routes under `path` (and the metrics) on the native app."""
        prefix = "" if path in ("", "/") else path.rstrip("/")
        self.openapi = json.loads(self.native.mount(native_app, prefix, self.openapi_path or ""))

    def close(self) -> None:
        """Writes queued decisions and model snapshots and closes the store (after the app stopped)."""
        self._finalizer()


@dataclass
class ReplayResult:
    report: dict[str, Any]
    reasons: list[str] = field(default_factory=list)

    @property
    def passed(self) -> bool:
        return not self.reasons


def replay(
    spec: str,
    log: str,
    candidate: str | None = None,
    *,
    min_samples: int = 100,
    resamples: int = 200,
    seed: int = 1,
    max_decisions: int = 1_000_000,
) -> ReplayResult:
    """POST .../evaluate's estimators and .../promote's gate over an exported log (the text of
    GET .../decisions?format=jsonl pages): `spec` the current spec (JSON or YAML text, or GET .../spec's answer),
    `candidate` a merge patch onto it. Bad input raises ValueError naming the line or field."""
    _require_native()
    options = {"min_samples": min_samples, "resamples": resamples, "seed": seed, "max_decisions": max_decisions}
    report, reasons = _native.decide_replay(spec, candidate or "", log, options)
    return ReplayResult(json.loads(report), list(reasons))


class DecideError(RuntimeError):
    """The decision service answered with an error (its problem+json body in `problem`), or could not be reached."""

    def __init__(self, message: str, status: int = 0, problem: Mapping[str, Any] | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.problem = dict(problem or {})


class DecideClient:
    """A small HTTP client of one capsule (`url`: the server's base URL) with the standard library only."""

    def __init__(
        self, url: str, tenant: str, job: str, capsule: str, *, api_key: str | None = None, timeout: float = 10.0
    ) -> None:
        self.base = f"{url.rstrip('/')}/v1/tenants/{tenant}/jobs/{job}/capsules/{capsule}"
        self.api_key = api_key
        self.timeout = timeout

    def call(self, method: str, path: str, body: Any = None) -> Any:
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(self.base + path, data=data, method=method)
        if data is not None:
            request.add_header("Content-Type", "application/json")
        if self.api_key:
            request.add_header("X-API-Key", self.api_key)
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as resp:
                return json.loads(resp.read() or b"null")
        except urllib.error.HTTPError as exc:
            text = exc.read()
            try:
                problem = json.loads(text)
            except ValueError:
                problem = {"detail": text.decode(errors="replace")}
            raise DecideError(f"{method} {path}: {exc.code} {problem.get('detail', '')}", exc.code, problem) from None
        except (urllib.error.URLError, OSError) as exc:
            raise DecideError(f"{method} {path}: {exc}") from None

    def decide(self, context: Mapping[str, Any] | None = None, **body: Any) -> dict[str, Any]:
        return self.call("POST", "/decide", {"context": dict(context or {}), **body})

    def reward(
        self,
        decision_id: str,
        reward: float | None = None,
        *,
        components: Mapping[str, float] | None = None,
        **body: Any,
    ) -> dict[str, Any]:
        payload: dict[str, Any] = {"decisionId": decision_id, **body}
        if reward is not None:
            payload["reward"] = reward
        if components is not None:
            payload["components"] = dict(components)
        return self.call("POST", "/reward", payload)


@dataclass
class Routed:
    """What ModelRouter.complete answered: the completion's result, the model used and the decision."""

    result: Any
    model: str
    decision_id: str | None
    probability: float
    latency: float
    components: dict[str, float]


class ModelRouter:
    """Wraps any completion function `complete(model, *args, **kwargs)`: each call asks the capsule (its actions
    are the model names) which model to use, calls `complete` with it, and reports the outcome as the decision's
    reward components: `latency` (seconds), `cost` (`cost(model, result)`, default 0) and `quality`
    (`quality(result)`, default 1; 0 when `complete` raised, and the exception propagates). The capsule's spec
    weighs them (reward.components, e.g. {"quality": 1, "latency": -0.2, "cost": -0.01}).

    When the decision service cannot be reached, `fallback` (a model name) is used and nothing is reported;
    without a fallback the DecideError propagates."""

    def __init__(
        self,
        url: str,
        complete: Callable[..., Any],
        *,
        tenant: str,
        job: str,
        capsule: str,
        quality: Callable[[Any], float] | None = None,
        cost: Callable[[str, Any], float] | None = None,
        fallback: str | None = None,
        api_key: str | None = None,
        timeout: float = 10.0,
    ) -> None:
        self.client = DecideClient(url, tenant, job, capsule, api_key=api_key, timeout=timeout)
        self.complete_fn = complete
        self.quality = quality
        self.cost = cost
        self.fallback = fallback

    def complete(
        self, *args: Any, context: Mapping[str, Any] | None = None, models: list[str] | None = None, **kwargs: Any
    ) -> Routed:
        """Routes one call; `context` describes the request (the capsule's features), `models` restricts the
        choice to some of the capsule's actions."""
        decision, model = self._decide(context, models)
        start = time.perf_counter()
        try:
            result = self.complete_fn(model, *args, **kwargs)
        except BaseException:
            if decision:
                self._report(decision["decisionId"], {"quality": 0.0, "latency": time.perf_counter() - start})
            raise
        return self._finish(decision, model, result, time.perf_counter() - start)

    __call__ = complete

    async def acomplete(
        self, *args: Any, context: Mapping[str, Any] | None = None, models: list[str] | None = None, **kwargs: Any
    ) -> Routed:
        """complete() for an `async def` completion function: the decision service is called on a worker thread,
        `complete(model, ...)` is awaited."""
        decision, model = await asyncio.to_thread(self._decide, context, models)
        start = time.perf_counter()
        try:
            result = await self.complete_fn(model, *args, **kwargs)
        except BaseException:
            if decision:
                await asyncio.to_thread(
                    self._report, decision["decisionId"], {"quality": 0.0, "latency": time.perf_counter() - start}
                )
            raise
        return await asyncio.to_thread(self._finish, decision, model, result, time.perf_counter() - start)

    def _decide(self, context: Mapping[str, Any] | None, models: list[str] | None) -> tuple[dict | None, str]:
        """The decision and the model it names; (None, fallback) when the service cannot be reached."""
        try:
            decision = self.client.decide(context, **({"actions": list(models)} if models else {}))
        except DecideError as exc:
            # The fallback covers an unreachable service; an answer with an error status is the caller's to see.
            if self.fallback is None or exc.status != 0:
                raise
            return None, self.fallback
        return decision, decision["action"]

    def _finish(self, decision: dict[str, Any] | None, model: str, result: Any, latency: float) -> Routed:
        components = {
            "latency": latency,
            "quality": float(self.quality(result)) if self.quality else 1.0,
            "cost": float(self.cost(model, result)) if self.cost else 0.0,
        }
        if decision:
            self._report(decision["decisionId"], components)
        return Routed(
            result,
            model,
            decision["decisionId"] if decision else None,
            decision["probability"] if decision else 1.0,
            latency,
            components,
        )

    def _report(self, decision_id: str, components: dict[str, float]) -> None:
        try:
            self.client.reward(decision_id, components=components)
        except DecideError:
            pass  # a lost reward becomes the spec's default reward after waitSeconds


__all__ = ["DecideClient", "DecideError", "Decisions", "ModelRouter", "ReplayResult", "Routed", "replay"]
