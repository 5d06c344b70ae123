"""The Bookstore workload's fixed parts (examples/bookstore): its schema, the endpoints driven and the review cursor."""
from __future__ import annotations

import functools
import importlib.util
import os

REPO_DIR = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BOOKSTORE_DIR = os.path.join(REPO_DIR, "examples", "bookstore")
SCHEMA = os.path.join(BOOKSTORE_DIR, "schema.sql")
SHARED = os.path.join(BOOKSTORE_DIR, "shared.py")

# The contender every Bookstore table is a ratio to: the FastAPI + asyncpg peer (contenders.py).
REFERENCE = "fastapi-asyncpg"
# bk-reviews asks for page 10 of the 205 reviews: the cursor signed after id 90, as the apps hand it out.
REVIEWS_AFTER = 90


@functools.cache
def shared_module():
    """examples/bookstore/shared.py, the Python apps' own cursor signing (HMAC with BOOKSTORE_CURSOR_SECRET, read
    when it is loaded: the contenders inherit the same environment)."""
    spec = importlib.util.spec_from_file_location("bookstore_shared", SHARED)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def review_cursor(after_id: int) -> str:
    """The signed cursor of the page after `after_id`: `<id>.<HMAC>`, what next_cursor carries."""
    return shared_module().sign_cursor(after_id)


PATHS = {
    "bk-stats": "/api/v1/books/stats",
    "bk-list": "/api/v1/books/?page=2",
    "bk-search": "/api/v1/books/?search=python",
    "bk-book": "/api/v1/books/17",
    "bk-reviews": f"/api/v1/reviews/?cursor={review_cursor(REVIEWS_AFTER)}",
}
