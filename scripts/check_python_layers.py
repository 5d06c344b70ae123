#!/usr/bin/env python3
"""Fails when the slipstream Python package has an import cycle or a module imports a higher layer.

The layers are those of python/slipstream/README.md ("Layers"), bottom first: a module may import its own layer
and those below. Every import counts, the ones inside functions too (an import moved into a function to dodge a
cycle is still a cycle), and importing `a.b.c` also imports the packages `a.b` and `a` (not the root package,
the public facade at the top, which Python initializes first whichever module is imported).
"""

from __future__ import annotations

import ast
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "python" / "slipstream"

# (layer, module names relative to the package; "x.*" is every module under the package x), bottom first.
LAYERS: list[tuple[str, list[str]]] = [
    ("native", ["_native"]),
    ("core", ["_core", "_core.*", "status", "datastructures", "background", "exceptions", "_encoders", "_lifespan",
              "requests", "responses", "_streaming", "_streaming_responses", "_file_response", "sse", "_database",
              "_database.*", "database", "structured", "llm_upstream", "_server_errors", "_cookie_jar",
              "encoders", "_threads", "_json_responses", "sessions", "tokens", "telemetry", "telemetry.*"]),
    ("params", ["params", "dependencies", "dependencies.params", "_markers", "_schema", "_plans", "_fallback", "forms",
                "_signature", "dependencies.param_models", "dependencies.form_fields", "_endpoint", "security", "security.*"]),
    ("dependencies", ["dependencies.tree", "dependencies.program", "dependencies.shape", "dependencies.early",
                      "dependencies.late", "dependencies.runner"]),
    ("routing", ["routing", "_route_class", "_responses_prep", "_route_misses", "_error_responses", "middleware", "middleware.*",
                 "_forwarded", "_native_route", "dependencies.install", "dependencies.late_routes", "_ws_endpoint",
                 "websockets", "_proxy", "_runtime", "_asgi", "_asgi.*"]),
    ("app", ["app", "_app_hooks", "openapi", "openapi.*", "staticfiles", "templating", "exception_handlers",
             "param_functions", "concurrency", "asgi", "asgi.*", "decide"]),
    ("mcp", ["mcp", "mcp.*"]),
    ("infer", ["infer"]),
    ("extras", ["", "__main__", "testclient", "_ws_session", "cli", "cli_inspect", "cli_mcp", "cli_new", "cli_asgi",
                "cli_bench", "_bench", "_bench.*",
                "cli_serve_model", "cli_decide",
                "log_setup", "reload", "supervisor"]),
]
EXTENSIONS = {"_native"}  # compiled modules (python/bindings), described by a .pyi stub


def modules_of(package: pathlib.Path) -> dict[str, pathlib.Path | None]:
    """Relative module name ("" for the package itself) -> its file (None for an extension)."""
    out: dict[str, pathlib.Path | None] = {}
    for path in sorted(package.rglob("*.py")):
        parts = list(path.relative_to(package).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        out[".".join(parts)] = path
    for path in sorted(package.rglob("*.pyi")):
        name = ".".join(path.relative_to(package).with_suffix("").parts)
        out.setdefault(name, None)
    return out


def layer_of(module: str, layers: list[tuple[str, list[str]]]) -> int | None:
    found = None
    for index, (_name, patterns) in enumerate(layers):
        for pattern in patterns:
            if module == pattern or (pattern.endswith(".*") and module.startswith(pattern[:-1])):
                found = index
    return found


def _targets(module: str, is_package: bool, node: ast.Import | ast.ImportFrom, root: str,
             known: set[str]) -> list[str]:
    """Relative names of the package's modules that `node` imports (with their parent packages)."""
    if isinstance(node, ast.Import):
        names = [a.name for a in node.names]
    else:
        if node.level:
            base = module.split(".") if module else []
            if not is_package:
                base = base[:-1]
            base = base[: len(base) - (node.level - 1)] if node.level > 1 else base
            absolute = ".".join([root, *base, *([node.module] if node.module else [])])
        else:
            absolute = node.module or ""
        names = []
        for alias in node.names:  # `from pkg import mod` imports the module pkg.mod
            candidate = f"{absolute}.{alias.name}"
            rel = candidate[len(root) + 1:] if candidate.startswith(root + ".") else None
            names.append(candidate if rel in known else absolute)
    out = []
    for name in names:
        if not name.startswith(root + ".") and name != root:
            continue
        if name == root:
            continue
        parts = name[len(root) + 1:].split(".")
        for i in range(1, len(parts) + 1):  # the module and the packages above it, not the root
            parent = ".".join(parts[:i])
            if parent in known and parent not in out:
                out.append(parent)
    return out


def import_graph(package: pathlib.Path) -> tuple[dict[str, list[tuple[str, int]]], set[str]]:
    """module -> [(imported module, line)], and every module name."""
    modules = modules_of(package)
    known = set(modules)
    root = package.name
    graph: dict[str, list[tuple[str, int]]] = {m: [] for m in modules}
    for module, path in modules.items():
        if path is None:
            continue
        tree = ast.parse(path.read_text(), filename=str(path))
        for node in ast.walk(tree):
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                for target in _targets(module, path.name == "__init__.py", node, root, known):
                    # A package's own modules import it implicitly (it is being initialized): not an edge.
                    if target != module and not module.startswith(target + "."):
                        graph[module].append((target, node.lineno))
    return graph, known


def _cycles(graph: dict[str, list[tuple[str, int]]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out: list[list[str]] = []
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted({t for t, _ in graph[start]})))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted({t for t, _ in graph[child]}))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    out.append(sorted(component))
    return out


def check(package: pathlib.Path, layers: list[tuple[str, list[str]]]) -> list[str]:
    """Every problem found, one line each; empty when the package is layered and acyclic."""
    graph, known = import_graph(package)
    root = package.name
    errors = []

    def shown(m: str) -> str:
        return f"{root}.{m}" if m else root

    for module in sorted(known):
        if layer_of(module, layers) is None:
            errors.append(f"{shown(module)}: in no layer (add it to LAYERS in scripts/check_python_layers.py)")
    for module in sorted(graph):
        own = layer_of(module, layers)
        for target, line in graph[module]:
            theirs = layer_of(target, layers)
            if own is not None and theirs is not None and theirs > own:
                errors.append(f"{shown(module)}:{line}: imports {shown(target)} ({layers[theirs][0]}), a layer above "
                              f"{layers[own][0]}")
    for component in _cycles(graph):
        errors.append("import cycle: " + " <-> ".join(shown(m) for m in component))
    return errors


def main() -> int:
    errors = check(PACKAGE, LAYERS)
    for error in errors:
        print(error)
    if errors:
        print(f"python layers: {len(errors)} problem(s); see python/slipstream/README.md")
        return 1
    print("python layers: ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
