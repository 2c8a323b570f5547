"""Summarise a mutmut run (``make mutate``): killed, surviving and untested mutants per
module, from mutmut's ``mutants/**/*.meta`` files, with the mutants known to be equivalent
(``docs/mutation-equivalents.toml``: each with its reason) set apart. Usage::

    .venv/bin/python scripts/mutation_summary.py [mutants/] [--survivors]

``--survivors`` also lists every mutant no test killed and that is not a known
equivalent, each with the line it changed, and every listed equivalent that has gone
(its function changed: mutmut renumbers) or was killed after all.

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
EQUIVALENTS = Path(__file__).resolve().parent.parent / "docs" / "mutation-equivalents.toml"


def equivalents(path: Path = EQUIVALENTS) -> dict[str, str]:
    """Mutant name -> why it is equivalent (no test can tell it from the code)."""
    if not path.exists():
        return {}
    out = {}
    for group in tomllib.loads(path.read_text())["equivalent"]:
        for name in group["mutants"]:
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
    known = equivalents()
    by_module = results(root)
    total: Counter[str] = Counter()
    print("| module | mutants | killed | survived | no tests | equivalent | not run | killed of the rest |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for module, statuses in by_module.items():
        c = Counter("equivalent" if name in known and s in ("survived", "no tests") else s
                    for name, s in statuses.items())
        total += c
        print(_row(module, c))
    print(_row("**all**", total))
    if "--survivors" in sys.argv:
        _survivors(root, by_module, known)


def _row(name: str, c: Counter[str]) -> str:
    rest = c["killed"] + c["survived"] + c["no tests"]
    rate = f"{100 * c['killed'] / rest:.1f} %" if rest else "-"
    return (f"| {name} | {sum(c.values())} | {c['killed']} | {c['survived']} | {c['no tests']} | {c['equivalent']} "
            f"| {c['not run']} | {rate} |")


def _survivors(root: Path, by_module: dict[str, dict[str, str]], known: dict[str, str]) -> None:
    every = {name: s for statuses in by_module.values() for name, s in statuses.items()}
    for name in sorted(set(known) - set(every)):
        print(f"\nlisted as equivalent but not found (its function changed?): {name}")
    for name in sorted(n for n in known if every.get(n) == "killed"):
        print(f"\nlisted as equivalent but killed: {name}")
    for module, statuses in by_module.items():
        left = [n for n, s in statuses.items() if s in ("survived", "no tests") and n not in known]
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
