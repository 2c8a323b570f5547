"""Time making the boards' B-rep solids (``occ/brep.py``'s ``stack_solid``) in this tree
against another tree's ``occ/brep.py``, on the very same slabs (this tree's boards as the
build plans them for a printer), and checking them (``BRepCheck_Analyzer``, what the tests
run on every board).

Both versions run in this process, alternating (``--rounds`` each; CPU seconds, the
fastest round: the machine is shared), so their ratio is measured side by side. Prints per
board (and tile) the seconds of each, the ratio, the faces, and the differences of volume
and bounding box between the two solids (the same solid: 0).

Usage::

    git worktree add --detach /tmp/before main
    .venv/bin/python scripts/bench_brep.py /tmp/before [--rounds 3] [--printer prusa-mk4] [--check]
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchlib import loadavg, machine_line  # noqa: E402  (scripts/ is on the path when run as a script)

from stratstone_cad.assets.makers import solid_maker  # noqa: E402
from stratstone_cad.base.printers import get_printer, load_profiles  # noqa: E402
from stratstone_cad.occ import brep  # noqa: E402
from stratstone_cad.registry import get_parts, load_params  # noqa: E402


def board_stacks(printer: str) -> list[tuple[str, list, str]]:
    """(name, slabs, what) of every board's tile, as ``solid_board`` hands them to ``stack_solid``."""
    ps, profiles = load_params(), load_profiles()
    out: list[tuple[str, list, str]] = []
    real = brep.stack_solid
    try:
        for g in get_parts(None):
            for j in g.plan(ps.params_of(g.name), get_printer(printer), profiles, ps.mesh):
                if "board" not in j.outputs[0].part:
                    continue
                caught: list[tuple[list, str]] = []
                brep.stack_solid = lambda slabs, what="board", caught=caught: caught.append((list(slabs), what))
                module, func = solid_maker(j.maker).split(":")
                getattr(importlib.import_module(module), func)(**j.args)
                out += [(f"{j.id} {k + 1}/{len(caught)}", s, w) for k, (s, w) in enumerate(caught)]
    finally:
        brep.stack_solid = real
    return out


def other_brep(tree: Path):
    spec = importlib.util.spec_from_file_location("brep_before", tree / "stratstone_cad/occ/brep.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def fastest(make, rounds: int) -> tuple[float, object]:
    best, made = float("inf"), None
    for _ in range(rounds):
        t = time.process_time()
        made = make()
        best = min(best, time.process_time() - t)
    return best, made


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("before", type=Path, help="the other tree (its stratstone_cad/occ/brep.py)")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--printer", default="prusa-mk4")
    ap.add_argument("--check", action="store_true", help="time BRepCheck_Analyzer on each solid too")
    a = ap.parse_args()
    from OCP.BRepCheck import BRepCheck_Analyzer

    from stratstone_cad.occ.shapes import volume

    before = other_brep(a.before)
    print(f"{machine_line()}; load {loadavg()} before")
    print("| board | before (s) | after (s) | ratio | faces before -> after | check before / after (s) | volume, box |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | --- |")
    total = [0.0, 0.0]
    for name, slabs, what in board_stacks(a.printer):
        t0, s0 = fastest(lambda slabs=slabs, what=what: before.stack_solid(slabs, what), a.rounds)
        t1, s1 = fastest(lambda slabs=slabs, what=what: brep.stack_solid(slabs, what), a.rounds)
        total[0] += t0
        total[1] += t1
        check = ""
        if a.check:
            c0, _ = fastest(lambda s0=s0: BRepCheck_Analyzer(s0.wrapped).IsValid(), 1)
            c1, _ = fastest(lambda s1=s1: BRepCheck_Analyzer(s1.wrapped).IsValid(), 1)
            check = f"{c0:.2f} / {c1:.2f}"
        b0, b1 = s0.BoundingBox(), s1.BoundingBox()
        box = max(abs(getattr(b0, k) - getattr(b1, k)) for k in ("xmin", "ymin", "zmin", "xmax", "ymax", "zmax"))
        print(f"| {name} | {t0:.2f} | {t1:.2f} | {t0 / t1:.2f}x | {len(s0.Faces())} -> {len(s1.Faces())} | {check} | "
              f"{volume(s1) - volume(s0):+.1e} mm3, {box:.1e} mm |", flush=True)
    print(f"| all | {total[0]:.2f} | {total[1]:.2f} | {total[0] / total[1]:.2f}x | | | |")
    print(f"load {loadavg()} after")


if __name__ == "__main__":
    main()
