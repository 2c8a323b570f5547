"""Summarise a mutmut run (``make mutate``): killed, surviving and untested mutants per
module, from mutmut's ``mutants/**/*.meta`` files, with the mutants known to be equivalent
(``docs/mutation-equivalents.toml``) set apart and the survivors left on purpose
(``docs/mutation-survivors.toml``) counted apart from the unexplained ones; each group in
those files says why. Usage::

    .venv/bin/python scripts/mutation_summary.py [mutants/] [--survivors]

``--survivors`` also lists every mutant no test killed that neither file explains, each
with the line it changed, and every listed mutant that has gone (its function changed:
mutmut renumbers its mutants) or was killed after all: those entries are stale.

Exit codes mutmut records: 1 (or any non-zero but the ones below) a test failed, the mutant
is killed; 0 every test passed, it survived; 33 no test covers it; 34 skipped; 36 timeout
(counted as killed: the mutant made a test hang); None not run yet.
"""

from __future__ import annotations

import ast
import difflib
import json
import sys
import tomllib
from collections import Counter
from pathlib import Path

STATUS = {0: "survived", 33: "no tests", 34: "skipped", 36: "killed", None: "not run"}
DOCS = Path(__file__).resolve().parent.parent / "docs"
EQUIVALENTS = DOCS / "mutation-equivalents.toml"
LEFT = DOCS / "mutation-survivors.toml"


def reasons(path: Path, table: str) -> dict[str, str]:
    """Mutant name -> the reason its group gives, from the ``[[table]]`` groups of ``path``
    (``equivalent``: no test can tell it from the code; ``survivor``: left, and why)."""
    if not path.exists():
        return {}
    out: dict[str, str] = {}
    for group in tomllib.loads(path.read_text()).get(table, []):
        for name in group["mutants"]:
            if name in out:
                raise SystemExit(f"{path.name}: {name} is listed twice")
            out[name] = group["reason"]
    return out


def results(root: Path) -> dict[str, dict[str, str]]:
    """Module path -> mutant name -> status."""
    out: dict[str, dict[str, str]] = {}
    for meta in sorted(root.rglob("*.py.meta")):
        codes = json.loads(meta.read_text())["exit_code_by_key"]
        if codes:
            module = meta.relative_to(root).as_posix().removesuffix(".meta")
            out[module] = {name: STATUS.get(c, "killed") for name, c in codes.items()}
    return out


def main() -> None:
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    root = Path(args[0] if args else "mutants")
    known = reasons(EQUIVALENTS, "equivalent")
    left = reasons(LEFT, "survivor")
    if both := sorted(set(known) & set(left)):
        raise SystemExit(f"listed both as equivalent and as a survivor: {', '.join(both)}")
    by_module = results(root)
    total: Counter[str] = Counter()
    print("| module | mutants | killed | equivalent | survived, reason given | survived, unexplained | no tests "
          "| not run | killed of the rest |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for module, statuses in by_module.items():
        c = Counter(_status(name, s, known, left) for name, s in statuses.items())
        total += c
        print(_row(module, c))
    print(_row("**all**", total))
    if "--survivors" in sys.argv:
        _survivors(root, by_module, known, left)


def _status(name: str, status: str, known: dict[str, str], left: dict[str, str]) -> str:
    if status in ("survived", "no tests"):
        if name in known:
            return "equivalent"
        if name in left and status == "survived":
            return "explained"
    return status


def _row(name: str, c: Counter[str]) -> str:
    rest = c["killed"] + c["explained"] + c["survived"] + c["no tests"]
    rate = f"{100 * c['killed'] / rest:.1f} %" if rest else "-"
    return (f"| {name} | {sum(c.values())} | {c['killed']} | {c['equivalent']} | {c['explained']} | {c['survived']} "
            f"| {c['no tests']} | {c['not run']} | {rate} |")


def _survivors(root: Path, by_module: dict[str, dict[str, str]], known: dict[str, str],
               explained: dict[str, str]) -> None:
    every = {name: s for statuses in by_module.values() for name, s in statuses.items()}
    for what, listed in (("equivalent", known), ("a survivor", explained)):
        for name in sorted(set(listed) - set(every)):
            print(f"\nlisted as {what} but not found (its function changed?): {name}")
        for name in sorted(n for n in listed if every.get(n) == "killed"):
            print(f"\nlisted as {what} but killed: {name}")
    for module, statuses in by_module.items():
        left = [n for n, s in statuses.items() if _status(n, s, known, explained) in ("survived", "no tests")]
        if not left:
            continue
        sources = _functions(root / module)
        for name in left:
            func = name.rsplit(".", 1)[-1]
            print(f"\n{name} ({statuses[name]})")
            for line in _diff(sources, func):
                print(f"    {line}")


def _functions(path: Path) -> dict[str, str]:
    """Every function of a mutated module (methods too), by name, as source text."""
    lines = path.read_text().splitlines()
    out = {}
    for node in ast.walk(ast.parse("\n".join(lines))):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and "__mutmut_" in node.name:
            out[node.name] = "\n".join(lines[node.lineno - 1:node.end_lineno])
    return out


def _diff(sources: dict[str, str], mutant: str) -> list[str]:
    base = mutant.rsplit("__mutmut_", 1)[0]
    orig, new = sources.get(f"{base}__mutmut_orig", ""), sources.get(mutant, "")
    a = orig.splitlines()[1:]  # the def lines differ by name only
    b = new.splitlines()[1:]
    return [d.strip() for d in difflib.unified_diff(a, b, lineterm="", n=0)
            if d[:1] in "+-" and not d.startswith(("+++", "---"))]


if __name__ == "__main__":
    main()
