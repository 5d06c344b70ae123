#!/usr/bin/env python3
"""Fails when a source file includes, or a library links, a module of a lower layer (ARCHITECTURE.md, "Layers").

Usage: check_layers.py [ROOT] (default: this checkout). Exit status 1 and one line per violation when any.
"""

import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent

# module (folder under src/) -> modules it may include, besides itself.
ALLOWED = {
    "base": set(),
    "net": {"base"},
    "metrics": {"base"},
    "http/h1": {"base"},
    "http/h2": {"base", "http/h2/hpack"},
    "http/h2/hpack": {"base"},
    "http/ws": {"base"},
    "http/sse": {"base"},
    "http/compression": {"base"},
    "http/multipart": {"base"},
    "json": {"base"},
    "router": {"base"},
    "policy/cors": {"base", "http/h1", "slipstream"},
    "policy/auth": {"base", "http/h1", "json"},
    "policy/ratelimit": {"base"},
    # server's sub-libraries, bottom to top; "server" itself (the public Server and App) may use all of them.
    "server/core": {"base", "net", "http/h1", "json", "router", "slipstream"},
    "server/validation": {"base", "http/h1", "json", "server/core", "slipstream"},
    "server/observe": {"base", "net", "metrics", "http/h2", "json", "router"},
    "server/coding": {"base", "metrics", "http/h1", "http/compression", "server/core", "server/observe", "slipstream"},
    "server/encode": {"base", "http/h1", "http/h2", "router", "server/core", "slipstream"},
    # the connection layer: protocol-neutral; a protocol's session is made through its SessionFactory.
    "server/conn": {
        "base",
        "net",
        "metrics",
        "http/h1",
        "http/compression",
        "http/sse",
        "json",
        "router",
        "policy/cors",
        "policy/auth",
        "policy/ratelimit",
        "server/core",
        "server/validation",
        "server/observe",
        "server/coding",
        "server/encode",
        "slipstream",
    },
    "server/ws": {"base", "net", "http/h2", "http/ws", "server/core", "server/observe", "server/conn", "slipstream"},
    "server/h2": {
        "base",
        "net",
        "http/h1",
        "http/h2",
        "http/ws",
        "server/core",
        "server/encode",
        "server/conn",
        "server/ws",
        "slipstream",
    },
    "server/h1": {
        "base",
        "http/h1",
        "http/h2",
        "http/ws",
        "server/core",
        "server/encode",
        "server/conn",
        "server/ws",
        "server/h2",
        "slipstream",
    },
    "server": {
        "base",
        "net",
        "metrics",
        "http/h1",
        "http/h2",
        "http/ws",
        "http/multipart",
        "json",
        "router",
        "policy/cors",
        "server/core",
        "server/validation",
        "server/observe",
        "server/conn",
        "server/ws",
        "server/h2",
        "server/h1",
        "slipstream",
    },
    # store/http, the outbound HTTP client, reads responses with http/h1's parsers and events with http/sse's, and
    # speaks HTTP/2 through http/h2's ClientSession (our frame codec and HPACK).
    "store": {"base", "net", "json", "http/h1", "http/h2", "http/h2/hpack", "http/sse"},
    # http/sse: the LLM proxy (agent/llm_proxy) reads its upstream's event stream with the base-only parser there.
    "agent": {"base", "json", "store", "metrics", "slipstream", "http/sse"},
    # the decision service reuses agent/sessions' transaction runner, SQL text and merge patch ("agent"), and the
    # engine's GCRA limiter for its per-principal decision and reward limits ("policy/ratelimit").
    "agent/decide": {"base", "json", "store", "metrics", "slipstream", "agent", "policy/ratelimit"},
    "app": {"*"},
}
MODULES = sorted(ALLOWED, key=len, reverse=True)
# Layers above the server that stand on the public C++ API (include/slipstream) may link the library that implements
# it, ss_server, and nothing else of the server: its parts stay behind the public headers.
PUBLIC_API_LIBRARY = "ss_server"
LINKS_PUBLIC_API = {"agent", "agent/decide"}
INCLUDE = re.compile(r'^\s*#\s*include\s*[<"]([^>"]+)[>"]')
# slipstream_module(name SOURCES ... DEPS ... PRIVATE_DEPS ...) in a CMakeLists.txt (cmake/SlipstreamModule.cmake).
MODULE_CALL = re.compile(r"slipstream_module\(\s*(\w+)([^)]*)\)")


def module_of(rel: str) -> str | None:
    for m in MODULES:
        if rel == m or rel.startswith(m + "/"):
            return m
    return None


def target_module(inc: str) -> str | None:
    if inc.startswith("slipstream/"):
        return "slipstream"
    return module_of(inc) if "/" in inc else None


# Beyond the public API, the Python bindings' Database (python/bindings/py_database.h) uses the store's one
# thread-safe handle (and the listener it opens), the value types its header declares, array cells, COPY's text
# format (copy_records.cpp), and the streaming JSON Schema validator (py_structured.cpp).
BINDINGS_HEADERS = {"store/database/database.h", "store/database/db_listener.h", "store/db_result.h",
                    "store/result_set.h", "store/value.h", "store/column_type.h", "store/copy_text.h",
                    "store/array_cell.h", "base/status.h", "base/result.h", "agent/structured/stream_validator.h"}


def check_file(root: pathlib.Path, path: pathlib.Path, owner: str, allowed: set[str],
               headers: frozenset[str] | set[str] = frozenset()) -> list[str]:
    errors = []
    for lineno, line in enumerate(path.read_text(errors="replace").splitlines(), 1):
        m = INCLUDE.match(line)
        if not m:
            continue
        target = target_module(m.group(1))
        if target is None or target == owner or "*" in allowed or target in allowed or m.group(1) in headers:
            continue
        errors.append(f"{path.relative_to(root)}:{lineno}: {owner} may not include {m.group(1)} ({target})")
    return errors


def check_links(root: pathlib.Path) -> list[str]:
    """Each library links only libraries of its own module or of modules it may include."""
    folder_of = {}  # ss_<name> -> its folder under src/
    deps = []  # (CMakeLists.txt, its folder, the ss_* libraries it links)
    for cmake in sorted((root / "src").rglob("CMakeLists.txt")):
        folder = cmake.parent.relative_to(root / "src").as_posix()
        for m in MODULE_CALL.finditer(cmake.read_text(errors="replace")):
            folder_of["ss_" + m.group(1)] = folder
            words = re.sub(r"#[^\n]*", "", m.group(2)).split()
            deps.append((cmake, folder, [w for w in words if w.startswith("ss_")]))  # DEPS and PRIVATE_DEPS
    errors = []
    for cmake, folder, linked in deps:
        owner = module_of(folder)
        if owner is None:
            continue  # reported by the include check
        for lib in linked:
            target = module_of(folder_of[lib]) if lib in folder_of else None
            if target is None or target == owner or "*" in ALLOWED[owner] or target in ALLOWED[owner]:
                continue
            if lib == PUBLIC_API_LIBRARY and owner in LINKS_PUBLIC_API:
                continue
            errors.append(f"{cmake.relative_to(root)}: {owner} may not link {lib} ({target})")
    return errors


def check_tree(root: pathlib.Path) -> list[str]:
    errors = check_links(root)
    for path in sorted((root / "src").rglob("*")):
        if path.suffix not in {".h", ".cpp"}:
            continue
        owner = module_of(path.parent.relative_to(root / "src").as_posix())
        if owner is None:
            errors.append(f"{path.relative_to(root)}: folder is not a known layer; add it to scripts/check_layers.py")
            continue
        errors += check_file(root, path, owner, ALLOWED[owner])
    # Public headers see only the standard library and each other.
    for path in sorted((root / "include").rglob("*.h")):
        errors += check_file(root, path, "slipstream", set())
    # Applications (examples) stand on the public API and the app layer (config, logging set-up);
    # the Python bindings on the public API and the store's Database (BINDINGS_HEADERS).
    for folder, allowed, headers in (("examples", {"app", "base"}, set()),
                                     ("python/bindings", set(), BINDINGS_HEADERS)):
        paths = [p for p in sorted((root / folder).rglob("*")) if p.suffix in {".h", ".cpp"}]
        for path in paths if (root / folder).exists() else []:
            errors += check_file(root, path, "slipstream", allowed, headers)
    return errors


def main(argv: list[str]) -> int:
    root = pathlib.Path(argv[1]).resolve() if len(argv) > 1 else ROOT
    errors = check_tree(root)
    for e in errors:
        print(e)
    if errors:
        print(f"lint: {len(errors)} layering violation(s)")
        return 1
    print("lint: layering ok")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
