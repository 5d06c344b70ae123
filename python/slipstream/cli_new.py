"""`slipstream new NAME`: a new project folder with an app, its tests and a README, ready for `slipstream run`."""

from __future__ import annotations

import argparse
import keyword
import os
import re
import sys

_APP = '''"""{name}: a Slipstream app (run: slipstream run {module}.app:app --reload)."""

from pydantic import BaseModel

from slipstream import App, HTTPException

app = App(title="{name}")


class Item(BaseModel):
    name: str
    price: float


ITEMS: dict[int, Item] = {{}}


@app.get("/items/{{item_id}}")
def read_item(item_id: int) -> Item:
    if item_id not in ITEMS:
        raise HTTPException(404, "Item not found")
    return ITEMS[item_id]


@app.put("/items/{{item_id}}")
def put_item(item_id: int, item: Item) -> Item:
    ITEMS[item_id] = item
    return item
'''

_TEST = '''from slipstream import TestClient

from {module}.app import app


def test_an_item_round_trips() -> None:
    with TestClient(app) as client:
        assert client.get("/items/1").status_code == 404
        assert client.put("/items/1", json={{"name": "tea", "price": 2.5}}).json() == {{"name": "tea", "price": 2.5}}
        assert client.get("/items/1").json() == {{"name": "tea", "price": 2.5}}
        assert client.put("/items/1", json={{"name": "tea"}}).status_code == 422
'''

_README = '''# {name}

A [Slipstream](https://pypi.org/project/slipstream/) app.

    slipstream run {module}.app:app --reload     # serve on http://127.0.0.1:8000 (docs at /docs)
    python -m pytest                            # the tests
    slipstream routes {module}.app:app          # what it serves
    slipstream check {module}.app:app           # import and compile every route without serving
'''


def add_command(commands: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    sub = commands.add_parser("new", help="create a project folder: an app, its tests, a README",
                              description="Create NAME/ with NAME_app/app.py (a small API), tests/ and README.md.")
    sub.add_argument("name", help="the project's name: letters, digits, '-' and '_', starting with a letter")
    sub.add_argument("--dir", default=".", help="the folder NAME/ is created in (default: .)")


def run(args: argparse.Namespace) -> int:
    name = args.name
    if not re.fullmatch(r"[A-Za-z][A-Za-z0-9_-]*", name):
        sys.stderr.write(f"error: {name!r}: a name starts with a letter and has letters, digits, '-' and '_'\n")
        return 2
    module = name.replace("-", "_").lower() + "_app"
    if keyword.iskeyword(module):
        module += "_"
    root = os.path.join(args.dir, name)
    if os.path.exists(root):
        sys.stderr.write(f"error: {root} exists already\n")
        return 1
    files = {
        os.path.join(module, "__init__.py"): "",
        os.path.join(module, "app.py"): _APP.format(name=name, module=module),
        os.path.join("tests", "__init__.py"): "",
        os.path.join("tests", "test_app.py"): _TEST.format(module=module),
        "README.md": _README.format(name=name, module=module),
    }
    for relative, text in files.items():
        path = os.path.join(root, relative)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
    sys.stdout.write(f"created {root}/: cd {root} && slipstream run {module}.app:app --reload\n")
    return 0
