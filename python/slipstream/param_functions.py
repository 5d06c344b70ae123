"""FastAPI's module of parameter declarations (`from fastapi.param_functions import Query`): the same names as
the package's top level."""

from __future__ import annotations

from .dependencies import Depends, Security
from .forms import File, Form
from .params import Body, Cookie, Header, Path, Query

__all__ = ["Body", "Cookie", "Depends", "File", "Form", "Header", "Path", "Query", "Security"]
