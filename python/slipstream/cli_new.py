"""`slipstream new NAME`: a new project folder with an app, its tests, a README, a Dockerfile and Helm values, ready
for `slipstream run`, `docker build` and the repository's chart (deploy/helm/slipstream)."""

from __future__ import annotations

import argparse
import keyword
import os
import re
import sys

from slipstream import __version__

# The project's files: template (in _new_templates/) -> path in the project. __MODULE__ is the app's package.
_FILES = {
    "app.py.tmpl": "__MODULE__/app.py",
    "test_app.py.tmpl": "tests/test_app.py",
    "README.md.tmpl": "README.md",
    "requirements.txt.tmpl": "requirements.txt",
    "Dockerfile.tmpl": "Dockerfile",
    "dockerignore.tmpl": ".dockerignore",
    "wheels-README.md.tmpl": "wheels/README.md",
    "helm-values.yaml.tmpl": "deploy/values.yaml",
}
_EMPTY = ("__MODULE__/__init__.py", "tests/__init__.py")
_TEMPLATES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "_new_templates")


def _fill(text: str, values: dict[str, str]) -> str:
    """Replaces each __KEY__ of `values` in `text` (plain markers: the Dockerfile's ${...} and Python's {...} stay)."""
    for key, value in values.items():
        text = text.replace(f"__{key}__", value)
    return text


def add_command(commands: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    sub = commands.add_parser(
        "new",
        help="create a project folder: an app, its tests, a README, a Dockerfile",
        description="Create NAME/ with NAME_app/app.py (a small API), tests/, README.md, "
        "requirements.txt, a Dockerfile (multi-stage, non-root, health check on "
        "/livez) and deploy/values.yaml for Slipstream's Helm chart.",
    )
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
    # Image, chart release and Kubernetes names are lower-case DNS labels.
    values = {
        "NAME": name,
        "MODULE": module,
        "IMAGE": name.lower().replace("_", "-"),
        "VERSION": __version__,
        "PYTHON": f"{sys.version_info.major}.{sys.version_info.minor}",
    }
    files = {_fill(path, values): "" for path in _EMPTY}
    for template, path in _FILES.items():
        with open(os.path.join(_TEMPLATES, template), encoding="utf-8") as f:
            files[_fill(path, values)] = _fill(f.read(), values)
    for relative, text in files.items():
        path = os.path.join(root, *relative.split("/"))
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
    sys.stdout.write(f"created {root}/: cd {root} && slipstream run {module}.app:app --reload\n")
    return 0
