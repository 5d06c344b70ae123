"""A dependency tree compiled into steps (post-order), and the coroutine that runs them for one request."""

from __future__ import annotations

import contextlib
import contextvars
import inspect
from contextlib import AsyncExitStack
from typing import Any

from .. import _signature, _threads, telemetry
from ..background import BackgroundTasks
from ..exceptions import RequestValidationError
from ..responses import Response
from . import form_fields as _form_fields
from . import param_models as _param_models
from . import tree as _tree
from .params import SecurityScopes

# Where a step's keyword argument comes from.
FLAT, STEP, REQUEST, RESPONSE, BACKGROUND, SCOPES, FORM, MODEL = range(8)


class Step:
    """One call: `call(**kwargs)` (awaited, or entered as a context manager for a `yield` dependency), or, for a
    dependency already solved in this request with the same cache key, that value (`alias`). A plain `def` call
    and a `yield` dependency's entry and exit run in the thread pool (`threaded`), as FastAPI runs them."""

    __slots__ = ("alias", "args", "call", "function_scope", "kind", "limit", "threaded")

    def __init__(self, dep: _tree.Dependant, args: list[tuple[str, int, Any]], alias: int | None,
                 threaded: bool = True) -> None:
        self.kind = dep.kind
        self.threaded = threaded and dep.kind in (_tree.CALL, _tree.GEN)
        self.limit = dep.limit
        self.alias = alias
        self.args = tuple(args)
        self.function_scope = dep.scope == "function"
        if dep.kind == _tree.GEN:
            self.call: Any = contextlib.contextmanager(dep.call)
        elif dep.kind == _tree.AGEN:
            self.call = contextlib.asynccontextmanager(dep.call)
        else:
            self.call = dep.call


class Program:
    """Steps in call order; the last one is the handler."""

    def __init__(self, root: _tree.Dependant, steps: list[Step], needs_request: bool,
                 flat: dict[tuple[int, str], str]) -> None:
        self.root = root
        self.steps = steps
        self.needs_request = needs_request
        self.flat = flat  # (id(dependant), parameter name) -> keyword
        self.exits = any(step.kind in (_tree.GEN, _tree.AGEN) for step in steps)  # `yield` dependencies
        # Parameter models, ((step index, parameter name), reader): in step order and, within a step, query,
        # header, cookie (the order of FastAPI's errors).
        self.models = [((i, name), ref) for i, step in enumerate(steps) if step.alias is None
                       for name, source, ref in sorted((a for a in step.args if a[1] == MODEL),
                                                       key=lambda a: _param_models.SOURCES.index(a[2].source))]
        self.step_models: dict[int, list[tuple[str, Any]]] = {}
        for (i, name), reader in self.models:
            self.step_models.setdefault(i, []).append((name, reader))
        # runs[i]: the end of the run of plain threaded `def` calls from step i, solved in one
        # thread hand-off (i + 1: step i alone). Not batched with parameter models, whose order needs each step apart.
        self.runs = [i + 1 for i in range(len(steps))]
        if not self.models:
            for i in range(len(steps) - 2, -1, -1):
                if _batchable(steps[i]) and _batchable(steps[i + 1]):
                    self.runs[i] = self.runs[i + 1]


def _batchable(step: Step) -> bool:
    return step.alias is None and step.kind == _tree.CALL and step.threaded and step.limit is None


def compile_tree(root: _tree.Dependant, flat: dict[tuple[int, str], str]) -> Program:
    """`flat`: (id(dependant), parameter name) -> the runner's keyword holding its validated value."""
    steps: list[Step] = []
    keys: list[Any] = []
    needs_request = False

    def visit(dep: _tree.Dependant) -> int:
        nonlocal needs_request
        depends_reads = [r for r in dep.reads if r.kind == _signature.DEPENDS]
        route_level = len(dep.subs) - len(depends_reads)
        for sub in dep.subs[:route_level]:
            visit(sub)
        by_name = {r.name: visit(sub) for r, sub in zip(depends_reads, dep.subs[route_level:])}
        args: list[tuple[str, int, Any]] = []
        for r in dep.reads:
            if r.kind == _signature.FIELD:
                assert r.field is not None
                args.append((r.name, FLAT, flat[(id(dep), r.field.name)]))
            elif r.kind == _signature.DEPENDS:
                args.append((r.name, STEP, by_name[r.name]))
            elif r.kind == _signature.REQUEST:
                needs_request = True
                args.append((r.name, REQUEST, None))
            elif r.kind == _signature.RESPONSE:
                args.append((r.name, RESPONSE, None))
            elif r.kind == _signature.BACKGROUND:
                args.append((r.name, BACKGROUND, None))
            elif r.kind == _form_fields.FORM:
                needs_request = True
                args.append((r.name, FORM, dep.form_fields[r.name]))
            elif r.kind == _signature.MODEL:
                assert r.field is not None
                needs_request = True
                args.append((r.name, MODEL, _param_models.reader(r.field)))
            else:
                args.append((r.name, SCOPES, tuple(dep.scopes)))
        key = dep.cache_key() if dep is not root else None
        alias = None
        if dep is not root and dep.use_cache and key in keys:
            alias = keys.index(key)
        steps.append(Step(dep, args, alias, threaded=dep is not root or not _streams(dep.call)))
        keys.append(key)
        return len(steps) - 1

    visit(root)
    return Program(root, steps, needs_request, flat)


def _streams(call: Any) -> bool:
    """A generator handler (a streamed response): calling it runs none of its code, so it stays on the loop."""
    endpoint = getattr(call, "__slipstream_endpoint__", call)
    return inspect.isgeneratorfunction(endpoint) or inspect.isasyncgenfunction(endpoint)


class Exchange:
    """One request's dependency state: the Request, the exit stacks of `yield` dependencies, and the
    Response and BackgroundTasks that dependencies and the handler share."""

    __slots__ = ("background", "fstack", "request", "response", "rstack")

    def __init__(self, request: Any) -> None:
        self.request = request
        self.response: Response | None = None
        self.background: BackgroundTasks | None = None
        self.rstack: AsyncExitStack | None = None
        self.fstack: AsyncExitStack | None = None

    def sub_response(self) -> Response:
        if self.response is None:
            response = Response()
            response.status_code = None  # type: ignore[assignment]  # FastAPI: unset until a dependency sets it
            self.response = response
        return self.response

    def background_tasks(self) -> BackgroundTasks:
        if self.background is None:
            self.background = BackgroundTasks()
        return self.background


async def call_step(step: Step, kwargs: dict[str, Any], ex: Exchange) -> Any:
    """One step's value: its call's result, or what its `yield` gave (its exit then waits on ex's stacks)."""
    if step.limit is not None:
        return await _limited(step, kwargs, ex)
    return await _call(step, kwargs, ex)


async def _call(step: Step, kwargs: dict[str, Any], ex: Exchange) -> Any:
    kind = step.kind
    if kind == _tree.CALL:
        return await _threads.run_sync(step.call, **kwargs) if step.threaded else step.call(**kwargs)
    if kind == _tree.ACALL:
        return await step.call(**kwargs)
    stack = ex.fstack if step.function_scope else ex.rstack
    assert stack is not None
    if kind == _tree.GEN:
        manager = step.call(**kwargs)
        return await stack.enter_async_context(_threads.sync_context(manager)) if step.threaded \
            else stack.enter_context(manager)
    return await stack.enter_async_context(step.call(**kwargs))


async def _limited(step: Step, kwargs: dict[str, Any], ex: Exchange) -> Any:
    """call_step under Depends(max_concurrency=...): a `yield` dependency holds its turn until its exit ran."""
    semaphore = step.limit.semaphore()
    if step.kind in (_tree.CALL, _tree.ACALL):
        async with semaphore:
            return await _call(step, kwargs, ex)
    stack = ex.fstack if step.function_scope else ex.rstack
    assert stack is not None
    await semaphore.acquire()
    stack.push_async_callback(_release, semaphore)
    return await _call(step, kwargs, ex)


async def _release(semaphore: Any) -> None:
    semaphore.release()


def _arguments(step: Step, flat: dict[str, Any], values: list[Any], ex: Exchange,
               models: dict[str, Any]) -> dict[str, Any]:
    kwargs: dict[str, Any] = {}
    form_values: dict[str, Any] | None = None
    for name, source, ref in step.args:
        if source == FLAT:
            kwargs[name] = flat[ref]
        elif source == MODEL:
            kwargs[name] = models[name]
        elif source == STEP:
            kwargs[name] = values[ref]
        elif source == REQUEST:
            kwargs[name] = ex.request
        elif source == RESPONSE:
            kwargs[name] = ex.sub_response()
        elif source == BACKGROUND:
            kwargs[name] = ex.background_tasks()
        elif source == FORM:
            if form_values is None:  # all of the step's fields at once: a 422 lists each invalid one
                form_values = _form_fields.values([r for _n, s, r in step.args if s == FORM], ex.request)
            kwargs[name] = form_values[ref.name]
        else:
            kwargs[name] = SecurityScopes(scopes=list(ref))
    return kwargs


def _run_in_one_thread(program: Program, start: int, end: int, flat: dict[str, Any], values: list[Any],
                       ex: Exchange, context: contextvars.Context) -> None:
    """Steps start..end-1, all plain `def` calls, one after the other in one worker thread: one
    hand-off instead of one per call. Each call runs in its own copy of the request's contextvars, as
    FastAPI's run_in_threadpool per call gives it."""
    for i in range(start, end):
        step = program.steps[i]
        kwargs = _arguments(step, flat, values, ex, {})
        values[i] = context.copy().run(step.call, **kwargs)


async def solve(program: Program, flat: dict[str, Any], ex: Exchange) -> Any:
    """Runs every step in order and returns the handler's result. `yield` dependencies enter ex.rstack (or
    ex.fstack for scope="function"), so their exit code runs when the caller closes those stacks. In a request
    traced with operation spans (slipstream.telemetry), the dependencies and the handler get FastAPI's
    fastapi.dependencies and fastapi.endpoint spans."""
    count = len(program.steps)
    values: list[Any] = [None] * count
    # With parameter models, FastAPI's order: a step whose models (or whose dependencies) are invalid is skipped,
    # the others run, and the errors of all are raised before the handler.
    skipped = [False] * count if program.models else None
    errors: list[Any] = []
    if not telemetry.operating():
        await _steps(program, flat, ex, values, skipped, errors, 0, count)
    else:
        with telemetry.operation("dependencies", program.root.call):
            start = await _steps(program, flat, ex, values, skipped, errors, 0, count - 1)
        with telemetry.operation("endpoint", program.root.call):
            await _steps(program, flat, ex, values, skipped, errors, start, count)
    if errors:
        raise RequestValidationError(errors)
    return values[-1]


async def _steps(program: Program, flat: dict[str, Any], ex: Exchange, values: list[Any], skipped: list[bool] | None,
                 errors: list[Any], i: int, stop: int) -> int:
    """Solves steps i..stop-1 into `values` (parameter models' errors into `errors`); returns where it stopped."""
    models: dict[str, Any] = {}
    while i < stop:
        step = program.steps[i]
        end = min(program.runs[i], stop)
        if end > i + 1:  # consecutive `def` calls: one thread hand-off for all of them
            await _threads.run_sync(_run_in_one_thread, program, i, end, flat, values, ex,
                                    contextvars.copy_context())
            i = end
            continue
        i += 1
        if step.alias is not None:
            values[i - 1] = values[step.alias]
            if skipped is not None:
                skipped[i - 1] = skipped[step.alias]
            continue
        if skipped is not None:
            found: list[Any] = []
            models = {name: reader.read(ex.request, found) for name, reader in program.step_models.get(i - 1, ())}
            errors += found
            if found or any(source == STEP and skipped[ref] for _name, source, ref in step.args):
                skipped[i - 1] = True
                continue
            if errors and i == len(program.steps):
                return i
        values[i - 1] = await call_step(step, _arguments(step, flat, values, ex, models), ex)
    return i
