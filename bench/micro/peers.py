"""The Python contenders (pydantic v2, jsonschema): each parses and validates the same bytes, timed in CPU time."""
from __future__ import annotations

import gc
import json
import math
import time
from collections.abc import Callable
from dataclasses import dataclass
from importlib import metadata

from micro import documents


class PeerUnavailable(RuntimeError):
    """The peer's package is not installed (the contender is reported as skipped)."""


@dataclass(frozen=True)
class Peer:
    name: str
    description: str
    packages: tuple[str, ...]
    make: Callable[[str, bytes], Callable[[bytes], bool]]  # (document name, schema text) -> validate(bytes)

    def versions(self) -> str:
        return ", ".join(f"{p} {_version(p)}" for p in self.packages)


def _version(package: str) -> str:
    try:
        return metadata.version(package)
    except metadata.PackageNotFoundError:
        return "not installed"


def _pydantic(document: str, schema: bytes) -> Callable[[bytes], bool]:
    try:
        from pydantic import ValidationError

        from micro import models
    except ImportError as e:
        raise PeerUnavailable(f"pydantic: {e}") from e
    adapter = models.ITEM if document == "small" else models.ITEM_LIST

    def validate(body: bytes) -> bool:
        try:
            adapter.validate_json(body)
        except ValidationError:
            return False
        return True
    return validate


def _jsonschema(document: str, schema: bytes) -> Callable[[bytes], bool]:
    try:
        from jsonschema import Draft202012Validator
    except ImportError as e:
        raise PeerUnavailable(f"jsonschema: {e}") from e
    validator = Draft202012Validator(json.loads(schema))  # compiled once, format not asserted (the default)
    return lambda body: validator.is_valid(json.loads(body))


PEERS = {
    "pydantic": Peer("pydantic", "pydantic v2 `TypeAdapter(Item | list[Item]).validate_json(bytes)` (builds the "
                     "model instances)", ("pydantic", "pydantic-core"), _pydantic),
    "jsonschema": Peer("jsonschema", "jsonschema `Draft202012Validator(schema).is_valid(json.loads(bytes))`, "
                       "validator built once", ("jsonschema",), _jsonschema),
}


def cpu_ns_per_call(fn: Callable[[], object], min_time_s: float) -> float:
    """CPU nanoseconds per call of fn, from one batch of at least min_time_s (GC off during it, as timeit)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        loops = 1
        while True:
            start = time.process_time_ns()
            for _ in range(loops):
                fn()
            elapsed = time.process_time_ns() - start
            if elapsed >= min_time_s * 1e9:
                return elapsed / loops
            # Grow tenfold while the batch is far too short, then aim 20% past the target in one step.
            target = min_time_s * 1e9
            loops = loops * 10 if elapsed < target / 10 else math.ceil(loops * target / elapsed * 1.2)
    finally:
        if enabled:
            gc.enable()


def measure(peer: Peer, min_time_s: float, data_dir: str = documents.DATA_DIR) -> dict[str, float]:
    """document name -> CPU ns per document; raises PeerUnavailable, or ValueError when a verdict is wrong."""
    out = {}
    for name, (doc_file, schema_file) in documents.DOCUMENTS.items():
        body = documents.read(doc_file, data_dir)
        validate = peer.make(name, documents.read(schema_file, data_dir))
        if not validate(body):
            raise ValueError(f"{peer.name} refused the valid {name} document")
        invalid = documents.INVALID_ITEM if name == "small" else b"[" + documents.INVALID_ITEM + b"]"
        if validate(invalid):
            raise ValueError(f"{peer.name} accepted the invalid {name} document")
        out[name] = cpu_ns_per_call(lambda f=validate, b=body: f(b), min_time_s)
    return out
