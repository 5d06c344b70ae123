"""The Bookstore's Slipstream Python app (examples/bookstore/app.py, unchanged) with the harness's runtime report;
`slipstream run bookstore_slipstream:app` serves it (contenders.py `_bookstore_slipstream_py`)."""
import runtime_report

from examples.bookstore.app import app

__all__ = ["app"]

runtime_report.write()  # the engine runs its own loops: the interpreter and the extension in use
