"""MkDocs hooks of the documentation site (mkdocs.yml): the pages made from other files of the repository.

- benchmarks.md: the benchmark ledger, BENCHMARKS.md, with the charts and raw results it links (bench/results/).
- sessions.md, decide.md: the README's sections on agent sessions and on /decide, while docs/ has no such page.
- reference/cli.md: `slipstream --help` and each command's --help, run with SLIPSTREAM_DOCS_PYTHON (default: the
  repository's .venv, which has the package installed).

A link from a page to a repository file outside docs/ (a module README, a source file) becomes the file's path as
code when the file exists; when it does not, the link is left for MkDocs to report, so that --strict fails on it.
"""

from __future__ import annotations

import logging
import os
import pathlib
import re
import subprocess
import sys
from typing import Any

from mkdocs.structure.files import File, Files

ROOT = pathlib.Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"  # the site's docs_dir (set from the configuration)
log = logging.getLogger("mkdocs.hooks.slipstream")
GENERATED: set[str] = set()  # the pages made here (their links are rewritten when made)

# Markdown links and images: [text](target) / ![alt](target), target without spaces; an optional #anchor.
LINK = re.compile(r"(!?)\[([^\]]*)\]\(([^)\s]+)\)")
# Generated page -> (file in the repository, first heading of the section to take; None for the whole file).
SECTIONS = {
    "sessions.md": ("README.md", "## Durable agent sessions", "# Agent sessions"),
    "decide.md": ("README.md", "## Decisions (`/decide`)", "# Decisions (`/decide`)"),
}


def _section(text: str, heading: str) -> str:
    """The lines from `heading` to the next heading of the same level (without the heading itself)."""
    lines = text.splitlines()
    start = lines.index(heading)
    level = heading.split(" ", 1)[0]
    end = next((i for i in range(start + 1, len(lines)) if lines[i].startswith(level + " ")), len(lines))
    return "\n".join(lines[start + 1 : end]).strip() + "\n"


def _outside_links(markdown: str, source_dir: pathlib.Path, page_dir: pathlib.Path) -> str:
    """Rewrites links that leave docs/: an existing repository file becomes its path as code; others stay."""

    def replace(match: re.Match[str]) -> str:
        bang, text, target = match.groups()
        if re.match(r"^[a-z][a-z0-9+.-]*:|^#|^/", target):
            return match.group(0)
        path_part = target.split("#", 1)[0]
        resolved = (source_dir / path_part).resolve()
        try:
            resolved.relative_to(DOCS)
            # Inside docs/: relative to the page as MkDocs reads it.
            return f"{bang}[{text}]({os.path.relpath(resolved, page_dir)}{target[len(path_part) :]})"
        except ValueError:
            pass
        try:
            in_repo = resolved.relative_to(ROOT).as_posix()
        except ValueError:
            return match.group(0)
        if bang or not resolved.exists():
            return match.group(0)  # MkDocs reports it (images of the ledger are handled before)
        return f"`{in_repo}`" if text.strip("`") == in_repo else f"{text} (`{in_repo}`)"

    return LINK.sub(replace, markdown)


def _ledger(files: Files, config: Any) -> None:
    """benchmarks.md from BENCHMARKS.md; each file it links under bench/results/ copied beside it."""
    text = (ROOT / "BENCHMARKS.md").read_text(encoding="utf-8")
    linked = sorted(set(re.findall(r"\]\((bench/results/[^)\s]+)\)", text)))
    for target in linked:
        source = ROOT / target
        if source.is_file():
            files.append(
                File.generated(config, target.replace("bench/results/", "bench-results/", 1), abs_src_path=str(source))
            )
        else:
            log.warning("BENCHMARKS.md links %s, which does not exist", target)
    text = text.replace("](bench/results/", "](bench-results/")
    _page(files, config, "benchmarks.md", _outside_links(text, ROOT, DOCS))


def _page(files: Files, config: Any, uri: str, content: str) -> None:
    GENERATED.add(uri)
    files.append(File.generated(config, uri, content=content))


def _cli_reference() -> str:
    python = os.environ.get("SLIPSTREAM_DOCS_PYTHON") or str(ROOT / ".venv" / "bin" / "python")
    if not os.path.exists(python):
        python = sys.executable
    env = {**os.environ, "COLUMNS": "100", "NO_COLOR": "1"}
    intro = (
        "The `slipstream` command (also `python -m slipstream`). Every `slipstream run` flag is also a "
        "`SLIPSTREAM_*` environment variable; a flag on the command line wins.\n"
    )
    parts = ["# Command line\n", intro]
    commands = [""]  # slipstream --help first: its usage line lists the commands, each asked in turn
    for command in commands:
        argv = [python, "-m", "slipstream", *([command] if command else []), "--help"]
        result = subprocess.run(argv, capture_output=True, text=True, env=env, cwd=ROOT, timeout=120, check=False)
        if result.returncode != 0:
            raise RuntimeError(f"{' '.join(argv[1:])} failed: {result.stderr[-2000:]}")
        if not command:
            listed = re.search(r"\{([a-z,-]+)\}", result.stdout)
            if listed is None:
                raise RuntimeError(f"no commands in slipstream --help: {result.stdout[:500]}")
            commands.extend(listed.group(1).split(","))
        parts.append(f"## slipstream {command}\n" if command else "## slipstream\n")
        parts.append("```text\n" + result.stdout.rstrip() + "\n```\n")
    return "\n".join(parts)


def _nav_pages(nav: Any) -> set[str]:
    """Every page file named in a nav (nested lists and {title: page} mappings)."""
    if isinstance(nav, str):
        return {nav}
    if isinstance(nav, dict):
        return set().union(*(_nav_pages(v) for v in nav.values()))
    if isinstance(nav, list):
        return set().union(*(_nav_pages(v) for v in nav)) if nav else set()
    return set()


def on_config(config: Any) -> Any:
    """Sets the docs folder, and lists a guide added to docs/ but not yet to mkdocs.yml's nav under How-to (titled
    by its first heading), so that a new page is on the site without an edit here."""
    global DOCS
    DOCS = pathlib.Path(config.docs_dir).resolve()
    listed = _nav_pages(config.nav)
    howto = next((item["How-to"] for item in config.nav or [] if isinstance(item, dict) and "How-to" in item), None)
    if howto is not None:
        for page in sorted(DOCS.glob("*.md")):
            if page.name not in listed:
                howto.append(page.name)
    return config


def on_files(files: Files, config: Any) -> Files:
    _ledger(files, config)
    for page, (source, heading, title) in SECTIONS.items():
        if (DOCS / page).exists():
            continue  # a page written for the site wins over the README's section
        body = _section((ROOT / source).read_text(encoding="utf-8"), heading)
        _page(files, config, page, title + "\n\n" + _outside_links(body, ROOT, DOCS))
    _page(files, config, "reference/cli.md", _cli_reference())
    return files


def on_page_markdown(markdown: str, page: Any, config: Any, files: Files) -> str:
    """The hand-written pages' links to repository files outside docs/ (generated pages are rewritten above)."""
    if page.file.src_uri in GENERATED:
        return markdown
    source = pathlib.Path(page.file.abs_src_path)
    return _outside_links(markdown, source.parent, source.parent)
