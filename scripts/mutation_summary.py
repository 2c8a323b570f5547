"""Summarise a mutmut run (``make mutate``): killed, survived and untested mutants per
module, from mutmut's ``mutants/**/*.meta`` files. Usage::

    .venv/bin/python scripts/mutation_summary.py [mutants/]

Exit codes mutmut records: 1 (or any non-zero but the ones below) a test failed, the mutant
is killed; 0 every test passed, it survived; 33 no test covers it; 34 skipped; 36 timeout
(counted as killed: the mutant made a test hang); None not run yet.
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from pathlib import Path

STATUS = {0: "survived", 33: "no tests", 34: "skipped", 36: "killed", None: "not run"}


def main() -> None:
    root = Path(sys.argv[1] if len(sys.argv) > 1 else "mutants")
    by_module: dict[str, Counter[str]] = {}
    for meta in sorted(root.rglob("*.py.meta")):
        codes = json.loads(meta.read_text())["exit_code_by_key"]
        if not codes:
            continue
        module = meta.relative_to(root).as_posix().removesuffix(".meta")
        by_module[module] = Counter(STATUS.get(c, "killed") for c in codes.values())
    total: Counter[str] = Counter()
    print("| module | mutants | killed | survived | no tests | not run | killed of tested |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    for module, c in by_module.items():
        total += c
        print(_row(module, c))
    print(_row("**all**", total))


def _row(name: str, c: Counter[str]) -> str:
    tested = c["killed"] + c["survived"]
    rate = f"{100 * c['killed'] / tested:.0f} %" if tested else "-"
    return (f"| {name} | {sum(c.values())} | {c['killed']} | {c['survived']} | {c['no tests']} | {c['not run']} "
            f"| {rate} |")


if __name__ == "__main__":
    main()
