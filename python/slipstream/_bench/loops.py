"""The two ways `slipstream bench` loads a server. Closed loop: each worker sends its next request when the
previous answer is read. Open loop: requests are scheduled at a constant rate whatever the server does; a request
waits for a free worker when all are busy, and its latency is measured from the time it was scheduled, not from
the time it was sent, so a server that stalls is charged for every request the stall delays (coordinated omission
corrected). Transport failures (refused, reset, timed out, malformed answers) are errors; every answer, whatever
its status, is a response counted by status.

Workers: one per HTTP/1.1 connection; with HTTP/2, `streams` workers share each connection (one stream each)."""

from __future__ import annotations

import asyncio
import collections
import math
from dataclasses import dataclass, field
from typing import Any, Protocol

from .http1 import BadAnswer, Http1Connection
from .http2 import Http2Connection
from .target import Target

PERCENTILES = (50.0, 90.0, 99.0, 99.9)
FAILURES = (OSError, asyncio.TimeoutError, BadAnswer, asyncio.IncompleteReadError, ValueError)


class Connection(Protocol):
    async def exchange(self) -> int: ...

    def close(self) -> None: ...


@dataclass
class Results:
    """What the measured part of a run saw (warm-up requests are not recorded)."""

    latencies: list[float] = field(default_factory=list)  # seconds
    answered_at: list[float] = field(default_factory=list)  # seconds since the measured part began
    statuses: collections.Counter[int] = field(default_factory=collections.Counter)
    errors: collections.Counter[str] = field(default_factory=collections.Counter)

    def summary(self, elapsed: float) -> dict[str, Any]:
        ordered = sorted(self.latencies)
        ms = {f"p{p:g}": percentile(ordered, p) * 1e3 for p in PERCENTILES} if ordered else {}
        if ordered:
            ms.update(mean=sum(ordered) / len(ordered) * 1e3, max=ordered[-1] * 1e3)
        return {
            "responses": len(ordered),
            "per_second": len(ordered) / elapsed if elapsed > 0 else 0.0,
            "errors": dict(self.errors),
            "statuses": {str(k): v for k, v in sorted(self.statuses.items())},
            "latency_ms": ms,
            "seconds": elapsed,
        }


def percentile(ordered: list[float], p: float) -> float:
    """Nearest-rank percentile of a sorted, non-empty list."""
    rank = max(1, math.ceil(p / 100.0 * len(ordered)))
    return ordered[rank - 1]


def error_name(exc: BaseException) -> str:
    if isinstance(exc, (asyncio.TimeoutError, TimeoutError)):
        return "timeout"
    if isinstance(exc, asyncio.IncompleteReadError):
        return "closed mid-answer"
    return type(exc).__name__


def worker_connections(target: Target, connections: int, streams: int, timeout: float) -> list[Connection]:
    """The connection each worker uses: its own over HTTP/1.1, one of `connections` shared over HTTP/2."""
    if not target.http2:
        return [Http1Connection(target, timeout) for _ in range(connections)]
    shared = [Http2Connection(target, timeout) for _ in range(connections)]
    return [shared[i % connections] for i in range(connections * streams)]


def _close(used: list[Connection]) -> None:
    for connection in {id(c): c for c in used}.values():
        connection.close()


async def closed_loop(
    target: Target, connections: int, streams: int, warmup: float, duration: float, timeout: float
) -> Results:
    results = Results()
    loop = asyncio.get_running_loop()
    measure_from = loop.time() + warmup
    deadline = measure_from + duration

    async def worker(connection: Connection) -> None:
        while (start := loop.time()) < deadline:
            try:
                status = await connection.exchange()
            except FAILURES as exc:
                if start >= measure_from:
                    results.errors[error_name(exc)] += 1
                await asyncio.sleep(0.01)  # a refused or failing server is not hammered in a tight loop
                continue
            if start >= measure_from:
                now = loop.time()
                results.latencies.append(now - start)
                results.answered_at.append(now - measure_from)
                results.statuses[status] += 1

    used = worker_connections(target, connections, streams, timeout)
    try:
        await asyncio.gather(*(worker(c) for c in used))
    finally:
        _close(used)
    return results


async def open_loop(
    target: Target, connections: int, streams: int, rate: float, warmup: float, duration: float, timeout: float
) -> Results:
    """Requests scheduled at `rate` per second; latency from each one's scheduled time."""
    results = Results()
    loop = asyncio.get_running_loop()
    start = loop.time()
    total = int(rate * (warmup + duration))
    measured_from = int(rate * warmup)  # the requests scheduled in the warm-up are not recorded
    queue: asyncio.Queue[tuple[int, float] | None] = asyncio.Queue()
    used = worker_connections(target, connections, streams, timeout)

    async def schedule() -> None:
        for i in range(total):
            due = start + i / rate
            if due > loop.time():
                await asyncio.sleep(due - loop.time())
            queue.put_nowait((i, due))
        for _ in used:
            queue.put_nowait(None)

    async def worker(connection: Connection) -> None:
        while (item := await queue.get()) is not None:
            index, due = item
            try:
                status = await connection.exchange()
            except FAILURES as exc:
                if index >= measured_from:
                    results.errors[error_name(exc)] += 1
                continue
            if index >= measured_from:
                now = loop.time()
                results.latencies.append(now - due)
                results.answered_at.append(now - start - warmup)
                results.statuses[status] += 1

    try:
        await asyncio.gather(schedule(), *(worker(c) for c in used))
    finally:
        _close(used)
    return results
