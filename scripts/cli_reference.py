"""Write docs/cli.md, the reference of every command and option, from the command line's
own parser (``stratstone_cad.cli``), so the page cannot drift from the code. Usage::

    .venv/bin/python scripts/cli_reference.py            # writes docs/cli.md
    .venv/bin/python scripts/cli_reference.py --check    # exit 1 if docs/cli.md is not what it writes

tests/test_docs.py renders the page in memory and compares it with the committed file.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from stratstone_cad import cli

ROOT = Path(__file__).resolve().parent.parent
PAGE = ROOT / "docs" / "cli.md"
COMMAND = "python scripts/cli_reference.py"

INTRO = f"""\
# The command line

Every command and option of `stratstone-cad`, as `stratstone-cad COMMAND --help` says them.
`make build` puts the command in `.venv/bin/`; `python -m stratstone_cad` is the same. Bad
input (a parameter out of range, an unknown name, printer or game, an unwritable output
folder, a bad log, standard output that cannot be written such as `> /dev/full`) gives one
line that names the thing, the value and what was expected, exit code 2, and nothing
half-written. A build that fails for a reason outside its input (a worker process killed,
PrusaSlicer failing) gives one line and exit code 1: the command was right and may be run
again. Output into a pipe whose reader has gone (`| head -1`) stops quietly with
exit code 141, as a process stopped by SIGPIPE does.

This page is generated from the command line's parser (`{COMMAND}`, from the
checkout's root, with `.venv/bin/python`); `make test` fails when it differs from the parser.
What the commands do in more depth: [build.md](build.md), [printing.md](printing.md),
[parts.md](parts.md), [games.md](games.md), [viewer.md](viewer.md)."""


def _subcommands(parser: argparse.ArgumentParser) -> tuple[dict[str, argparse.ArgumentParser], dict[str, str]]:
    """The subcommands' parsers and their one-line help, in the parser's order."""
    action = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    helps = {a.dest: a.help or "" for a in action._choices_actions}
    return dict(action.choices), helps


def _metavar(action: argparse.Action) -> str:
    if action.metavar is not None:
        return str(action.metavar)
    if action.choices is not None:
        return "{" + ",".join(str(c) for c in action.choices) + "}"
    return action.dest.upper()


def _spelling(action: argparse.Action) -> str:
    """How an argument is written: ``--out DIR``, ``--reach, --no-reach``, ``GAME ...``."""
    if not action.option_strings:
        name = _metavar(action)
        return {"*": f"[{name} ...]", "?": f"[{name}]", "+": f"{name} ..."}.get(action.nargs, name)  # type: ignore[arg-type]
    if action.nargs == 0:  # a flag: store_true, BooleanOptionalAction, help, version
        return ", ".join(action.option_strings)
    return ", ".join(f"{o} {_metavar(action)}" for o in action.option_strings)


def _cell(text: str) -> str:
    return " ".join(text.split()).replace("|", "\\|")


def _arguments(parser: argparse.ArgumentParser, top: bool = False) -> list[str]:
    """A table of the parser's arguments (``--help`` only at the top: every command has it)."""
    rows = ["| argument | what it does |", "| --- | --- |"]
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction) or action.help == argparse.SUPPRESS:
            continue
        if isinstance(action, argparse._HelpAction) and not top:
            continue
        rows.append(f"| `{_spelling(action)}` | {_cell((action.help or '') % {'default': action.default})} |")
    return rows


def _usage(name: str, parser: argparse.ArgumentParser) -> str:
    """``stratstone-cad NAME`` and its arguments on one line, the positional ones last as argparse puts them."""
    words = [f"{cli.PROG} {name}".strip()]
    positional = []
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            positional.append("COMMAND ...")
        elif not action.option_strings:
            positional.append(_spelling(action))
        elif not isinstance(action, (argparse._HelpAction, argparse._VersionAction)):
            word = " | ".join(action.option_strings) if action.nargs == 0 else f"{action.option_strings[0]} {_metavar(action)}"
            words.append(word if action.required else f"[{word}]")
    return " ".join(words + positional)


def render() -> str:
    """docs/cli.md as the parser says it today."""
    parser = cli.parser()
    commands, helps = _subcommands(parser)
    lines = [INTRO, "", "## Commands", "", "```text", _usage("", parser), "```", "",
             "| command | what it does |", "| --- | --- |"]
    lines += [f"| [`{name}`](#{name}) | {_cell(helps[name])} |" for name in commands]
    lines += ["", *_arguments(parser, top=True)]
    for name, sub in commands.items():
        lines += ["", f"## {name}", "", "```text", _usage(name, sub), "```", "", _cell(sub.description or helps[name]), "",
                  *_arguments(sub)]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--check", action="store_true", help="do not write: exit 1 if docs/cli.md differs")
    args = ap.parse_args(argv)
    text = render()
    if args.check:
        if PAGE.read_text(encoding="utf-8") != text:
            print(f"{PAGE.relative_to(ROOT)} differs from the command line's parser; run {COMMAND}", file=sys.stderr)
            return 1
        return 0
    PAGE.write_text(text, encoding="utf-8")
    print(f"wrote {PAGE.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
