"""The documentation cannot drift: docs/cli.md is what the command line's parser says, and
every relative link of the README and of docs/ names a file (and a heading) that exists."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

from tests import ROOT

PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


def _cli_reference():
    spec = importlib.util.spec_from_file_location("cli_reference", ROOT / "scripts" / "cli_reference.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_cli_page_is_what_the_parser_says():
    ref = _cli_reference()
    assert ref.PAGE.read_text(encoding="utf-8") == ref.render(), (
        "docs/cli.md differs from the command line's parser: run .venv/bin/python scripts/cli_reference.py "
        "to write it again, and commit it")


def test_the_cli_page_names_every_command_and_option():
    """The page is made from the parser's own lists, not from a list kept beside them."""
    from stratstone_cad import cli

    text = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8")
    parser = cli.parser()
    commands = next(a for a in parser._actions if hasattr(a, "_choices_actions")).choices
    assert set(commands) == {"build", "list", "play", "record", "preview", "replay", "check-log", "puzzles", "kit", "studio"}
    for name, sub in commands.items():
        assert f"\n## {name}\n" in text, name
        section = text.split(f"\n## {name}\n", 1)[1].split("\n## ", 1)[0]
        for action in sub._actions:
            for option in action.option_strings:
                assert option in {"-h", "--help"} or f"`{option}" in section or f", {option}" in section, (name, option)


def _prose(text: str) -> str:
    """``text`` without its fenced code blocks (a link there is code, not a link)."""
    return re.sub(r"^```.*?^```", "", text, flags=re.S | re.M)


def _anchors(page: Path) -> set[str]:
    """GitHub's anchors of a page's headings: lower case, punctuation dropped, spaces as dashes."""
    out = set()
    for heading in re.findall(r"^#+ (.+)$", _prose(page.read_text(encoding="utf-8")), re.M):
        out.add(re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-"))
    return out


def test_every_relative_link_resolves():
    broken = []
    for page in PAGES:
        for target in re.findall(r"\]\(([^)\s]+)\)", _prose(page.read_text(encoding="utf-8"))):
            if re.match(r"[a-z]+:", target):  # https:, mailto:
                continue
            path, _, anchor = target.partition("#")
            file = (page.parent / path).resolve() if path else page
            if not file.exists():
                broken.append(f"{page.relative_to(ROOT)}: {target} (no such file)")
            elif anchor and file.suffix == ".md" and anchor not in _anchors(file):
                broken.append(f"{page.relative_to(ROOT)}: {target} (no such heading)")
    assert not broken, "links that name nothing:\n" + "\n".join(broken)


def test_the_readme_is_read_in_five_minutes():
    """At most about 1,500 words; the reference lives in docs/."""
    words = len((ROOT / "README.md").read_text(encoding="utf-8").split())
    assert words <= 1600, f"README.md has {words} words: move the reference into docs/"
