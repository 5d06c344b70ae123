"""Jinja2Templates: HTML pages rendered from Jinja2 templates (Starlette's API, which FastAPI re-exports).

`templates.TemplateResponse(request, "page.html", {"item": item})` renders in the handler and returns an
HTMLResponse; templates call `url_for("route_name", **path_params)` (the request's url_for: an absolute URL).
jinja2 is an optional dependency: `pip install slipstream[web]` (or jinja2 itself).
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from . import _server_errors
from .requests import Request
from .responses import HTMLResponse

try:
    import jinja2
except ImportError as _missing:  # pragma: no cover - depends on the environment
    raise ImportError("jinja2 must be installed to use Jinja2Templates (pip install jinja2)") from _missing


class _TemplateResponse(HTMLResponse):
    """The rendered page; `template` and `context` are what it was rendered from."""

    def __init__(self, template: jinja2.Template, context: dict[str, Any], status_code: int = 200,
                 headers: Mapping[str, str] | None = None, media_type: str | None = None,
                 background: Any = None) -> None:
        self.template = template
        self.context = context
        super().__init__(template.render(context), status_code, headers, media_type, background)
        _server_errors.report_template(getattr(context.get("request"), "app", None), template, context)


@jinja2.pass_context
def _url_for(context: Any, name: str, /, **path_params: Any) -> Any:
    """`url_for` in templates: the absolute URL of a route of the app serving the template's request."""
    return context["request"].url_for(name, **path_params)


class Jinja2Templates:
    """Templates from `directory` (one path or several, searched in order) or a ready `env`
    (jinja2.Environment), not both. `context_processors` are functions request -> dict, merged into the context
    of every TemplateResponse."""

    def __init__(self, directory: str | os.PathLike[str] | Sequence[str | os.PathLike[str]] | None = None, *,
                 context_processors: list[Callable[[Request], dict[str, Any]]] | None = None,
                 env: jinja2.Environment | None = None) -> None:
        if bool(directory) == bool(env):
            raise AssertionError("either 'directory' or 'env' arguments must be passed")  # Starlette's assert
        self.context_processors = list(context_processors or [])
        if env is None:
            env = jinja2.Environment(loader=jinja2.FileSystemLoader(directory),  # type: ignore[arg-type]
                                     autoescape=jinja2.select_autoescape())
        self.env = env
        self.env.globals.setdefault("url_for", _url_for)

    def get_template(self, name: str) -> jinja2.Template:
        return self.env.get_template(name)

    def TemplateResponse(self, *args: Any, **kwargs: Any) -> _TemplateResponse:
        """`TemplateResponse(request, name, context=None, status_code=200, headers=None, media_type=None,
        background=None)`; the older `TemplateResponse(name, {"request": request, ...}, ...)` still works (with a
        DeprecationWarning, as in Starlette before 1.0). The context gets `request` unless it has one."""
        if args and isinstance(args[0], str) or (not args and "request" not in kwargs and "name" in kwargs):
            request, name, context, rest = _old_call(args, kwargs)
        else:
            request, name, context, rest = _new_call(args, kwargs)
        context = dict(context or {})
        context.setdefault("request", request)
        for processor in self.context_processors:
            context.update(processor(request))
        return _TemplateResponse(self.get_template(name), context, **rest)


_OPTIONS = ("status_code", "headers", "media_type", "background")


def _bind(names: Sequence[str], args: tuple[Any, ...], kwargs: dict[str, Any]) -> dict[str, Any]:
    if len(args) > len(names):
        raise TypeError(f"TemplateResponse() takes at most {len(names)} positional arguments ({len(args)} given)")
    bound = dict(zip(names, args))
    for key, value in kwargs.items():
        if key not in names:
            raise TypeError(f"TemplateResponse() got an unexpected keyword argument {key!r}")
        if key in bound:
            raise TypeError(f"TemplateResponse() got multiple values for argument {key!r}")
        bound[key] = value
    return bound


def _new_call(args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[Any, str, Any, dict[str, Any]]:
    bound = _bind(("request", "name", "context", *_OPTIONS), args, kwargs)
    if "request" not in bound or "name" not in bound:
        raise TypeError("TemplateResponse() needs the request and the template name: TemplateResponse(request, name)")
    return bound["request"], bound["name"], bound.get("context"), {k: bound[k] for k in _OPTIONS if k in bound}


def _old_call(args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[Any, str, Any, dict[str, Any]]:
    warnings.warn("The `name` is not the first parameter anymore. The first parameter should be the `Request` "
                  "instance.\nReplace `TemplateResponse(name, {\"request\": request})` by "
                  "`TemplateResponse(request, name)`.", DeprecationWarning, stacklevel=3)
    bound = _bind(("name", "context", *_OPTIONS, "request"), args, kwargs)
    context = bound.get("context") or {}
    request = bound.get("request", context.get("request"))
    if request is None:
        raise ValueError('context must include a "request" key')
    return request, bound["name"], context, {k: bound[k] for k in _OPTIONS if k in bound}


__all__ = ["Jinja2Templates"]
