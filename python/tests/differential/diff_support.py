"""Shared by the differential suite's conftest and tests: request building, response comparison, outcomes."""

from __future__ import annotations

import dataclasses
import json as _json
from collections.abc import Callable, Iterator
from typing import Any
from urllib.parse import urlencode

# Headers whose values must match (the rest, e.g. date and server, legitimately differ).
COMPARED_HEADERS = ("content-type", "content-length", "location", "allow", "set-cookie", "www-authenticate")


@dataclasses.dataclass
class Outcome:
    """One request's comparison: `diffs` is empty when the two frameworks answered alike."""

    case_id: str
    gap: str | None
    diffs: list[str]
    module: str = ""  # the test module that compared it (set by record)


OUTCOMES: list[Outcome] = []
CURRENT_MODULE = [""]  # the running test's module file name (conftest's autouse fixture sets it)


def record(outcome: Outcome) -> None:
    outcome.module = outcome.module or CURRENT_MODULE[0]
    OUTCOMES.append(outcome)


def build_request(kwargs: dict[str, Any]) -> tuple[bytes | None, dict[str, str]]:
    """The same bytes and headers for both clients (no client-side encoding differences)."""
    # Compressed responses are compared as FastAPI sends them: uncompressed (it has no compression by default).
    headers = {"accept-encoding": "identity", **kwargs.get("headers", {})}
    body: bytes | None = None
    if "json" in kwargs:
        body = _json.dumps(kwargs["json"]).encode()
        headers.setdefault("content-type", "application/json")
    elif "content" in kwargs:
        body = kwargs["content"]
    elif "form" in kwargs or "files" in kwargs:
        body, content_type = _multipart(kwargs.get("form", {}), kwargs.get("files", {}))
        if "files" not in kwargs:
            body, content_type = urlencode(kwargs["form"]).encode(), "application/x-www-form-urlencoded"
        headers["content-type"] = content_type
    if "cookies" in kwargs:
        headers["cookie"] = "; ".join(f"{k}={v}" for k, v in kwargs["cookies"].items())
    return body, headers


def _multipart(form: dict[str, str], files: dict[str, tuple[str, bytes, str]]) -> tuple[bytes, str]:
    boundary = "diffboundary"
    parts = []
    for name, value in form.items():
        parts.append(f'--{boundary}\r\nContent-Disposition: form-data; name="{name}"\r\n\r\n{value}\r\n'.encode())
    for name, (filename, data, ctype) in files.items():
        head = (f'--{boundary}\r\nContent-Disposition: form-data; name="{name}"; filename="{filename}"\r\n'
                f"Content-Type: {ctype}\r\n\r\n")
        parts.append(head.encode() + data + b"\r\n")
    return b"".join(parts) + f"--{boundary}--\r\n".encode(), f"multipart/form-data; boundary={boundary}"


def _values(response: Any, name: str) -> list[str]:
    headers = response.headers
    return list(headers.get_list(name) if hasattr(headers, "get_list") else headers.getlist(name))


def compare(ours: Any, theirs: Any) -> list[str]:
    """Every difference between the two responses, as readable lines (empty when they agree)."""
    diffs = []
    if ours.status_code != theirs.status_code:
        diffs.append(f"status: slipstream {ours.status_code}, fastapi {theirs.status_code}")
    names = set(COMPARED_HEADERS)
    names |= {k.lower() for k in theirs.headers if k.lower().startswith("x-")}
    names |= {k.lower() for k in ours.headers if k.lower().startswith("x-") and k.lower() != "x-request-id"}
    for name in sorted(names):
        a, b = _values(ours, name), _values(theirs, name)
        if name == "allow":  # FastAPI joins a route's methods from a set: their order varies between runs
            a, b = [sorted(v.split(", ")) for v in a], [sorted(v.split(", ")) for v in b]
        if a != b:
            diffs.append(f"header {name}: slipstream {a}, fastapi {b}")
    if ours.content != theirs.content:
        diffs.append(f"body: slipstream {ours.content!r}")
        diffs.append(f"body: fastapi    {theirs.content!r}")
    return diffs




def client_pairs(apps: dict[str, Callable[[Any], Any]]) -> Iterator[Callable[[str], tuple[Any, Any]]]:
    """Body of a module-scoped `pair` fixture: pair(name) builds apps[name] under each framework once and returns
    (slipstream client, FastAPI client), both giving 500s and redirects as responses; all closed at the end."""
    import fastapi
    import slipstream
    from fastapi.testclient import TestClient as FastAPIClient

    built: dict[str, tuple[Any, Any]] = {}

    def get(name: str) -> tuple[Any, Any]:
        if name not in built:
            built[name] = (slipstream.TestClient(apps[name](slipstream), raise_server_exceptions=False,
                                                 follow_redirects=False),
                           FastAPIClient(apps[name](fastapi), raise_server_exceptions=False, follow_redirects=False))
        return built[name]

    yield get
    for ours, theirs in built.values():
        ours.close()
        theirs.close()


def exchange(pair: Callable[[str], tuple[Any, Any]], app: str, method: str, url: str,
             kwargs: dict[str, Any]) -> tuple[Any, Any]:
    """The same request sent to both frameworks' app `app`: (slipstream's response, FastAPI's)."""
    ours, theirs = pair(app)
    body, headers = build_request(kwargs)
    expected = theirs.request(method, url, content=body, headers=headers)
    return ours.request(method, url, content=body, headers=headers), expected


def new_app(fw: Any, **options: Any) -> Any:
    """An app of framework module `fw` (fastapi or slipstream) with the same title, so OpenAPI documents compare."""
    options.setdefault("title", "Differential")
    return fw.FastAPI(**options) if fw.__name__ == "fastapi" else fw.App(**options)


def page_row(app: str, method: str, url: str, gap: str | None = None, **kwargs: Any) -> Any:
    """A pytest param (app, method, url, gap, kwargs) for check_row; `gap` makes it a strict xfail naming why."""
    import pytest

    marks = [pytest.mark.xfail(strict=True, reason=gap)] if gap else []
    detail = " ".join(f"{k}={v}" for k, v in kwargs.items() if k in ("json", "headers", "form"))
    return pytest.param(app, method, url, gap, kwargs, id=f"{app} {method} {url} {detail}".strip(), marks=marks)


def check_row(pair: Callable[[str], tuple[Any, Any]], case_id: str, app: str, method: str, url: str,
              gap: str | None, kwargs: dict[str, Any]) -> None:
    """Sends a page_row's request to both frameworks, records the outcome and fails on any difference."""
    got, expected = exchange(pair, app, method, url, kwargs)
    diffs = compare(got, expected)
    record(Outcome(case_id, gap, diffs))
    assert not diffs, "\n".join(diffs)


def same_answer_test(rows: list[Any]) -> Callable[..., None]:
    """A page module's test: `test_same_answer = same_answer_test(ROWS)` runs check_row for each page_row, with the
    module's `pair` fixture."""
    import pytest

    @pytest.mark.parametrize(("app", "method", "url", "gap", "kwargs"), rows)
    def test_same_answer(pair: Any, request: Any, app: str, method: str, url: str, gap: str | None,
                         kwargs: dict[str, Any]) -> None:
        check_row(pair, request.node.callspec.id, app, method, url, gap, kwargs)

    return test_same_answer


def copy_route_class(fw: Any) -> Any:
    """An APIRoute subclass of framework `fw` whose handler gets a Request subclass made from the request's scope
    and receive (FastAPI's "Custom Request and APIRoute class")."""

    class Copied(fw.Request):
        pass

    class CopyRoute(fw.routing.APIRoute):
        def get_route_handler(self) -> Callable[..., Any]:
            original_route_handler = super().get_route_handler()

            async def custom_route_handler(request: Any) -> Any:
                return await original_route_handler(Copied(request.scope, request.receive))

            return custom_route_handler

    return CopyRoute
