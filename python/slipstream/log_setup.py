"""`slipstream run --log-level/--log-format`: the engine's lines and Python's logging in one shape.

auto: coloured on a terminal, plain otherwise; text: "name: message" (Python) and "level: message" (engine);
color: the level coloured; json: one object per line ({"ts", "level", "logger", "msg"}, "exc" with a traceback).
"""

from __future__ import annotations

import datetime
import json
import logging
import sys

from . import _native

_LEVELS = {"debug": logging.DEBUG, "info": logging.INFO, "warning": logging.WARNING, "warn": logging.WARNING,
           "error": logging.ERROR, "off": logging.CRITICAL + 10}
_COLORS = {logging.DEBUG: "\x1b[2m", logging.INFO: "\x1b[32m", logging.WARNING: "\x1b[33m"}


class JsonFormatter(logging.Formatter):
    """One JSON object per record: ts (UTC, milliseconds), level, logger, msg, and exc when there is one."""

    def format(self, record: logging.LogRecord) -> str:
        ts = datetime.datetime.fromtimestamp(record.created, datetime.timezone.utc)
        line = {"ts": ts.strftime("%Y-%m-%dT%H:%M:%S.") + f"{int(record.msecs):03d}Z",
                "level": record.levelname.lower(), "logger": record.name, "msg": record.getMessage()}
        if record.exc_info:
            line["exc"] = self.formatException(record.exc_info)
        return json.dumps(line, ensure_ascii=False)


class ColorFormatter(logging.Formatter):
    """"level: name: message" with the level coloured as the engine colours its own."""

    def format(self, record: logging.LogRecord) -> str:
        color = _COLORS.get(record.levelno, "\x1b[31m")
        text = f"{color}{record.levelname.lower()}\x1b[0m: {record.name}: {record.getMessage()}"
        if record.exc_info:
            text += "\n" + self.formatException(record.exc_info)
        return text


def configure(level: str = "info", fmt: str = "auto") -> None:
    """Sets the engine's level and line shape and, unless the program configured logging itself, Python's."""
    resolved = fmt if fmt != "auto" else ("color" if sys.stderr.isatty() else "text")
    _native.set_log_options("warn" if level == "warning" else level, resolved)
    root = logging.getLogger()
    if root.handlers:
        return
    handler = logging.StreamHandler()
    if resolved == "json":
        handler.setFormatter(JsonFormatter())
    elif resolved == "color":
        handler.setFormatter(ColorFormatter())
    else:
        handler.setFormatter(logging.Formatter("%(name)s: %(message)s"))
    root.addHandler(handler)
    root.setLevel(_LEVELS[level])
