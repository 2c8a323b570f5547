"""A game's whole set as a coloured CadQuery assembly, laid out as at the start of a game.

In CQ-editor (File > Open, then Render) or VS Code with ocp_vscode, the set is shown with
``show_object``. With plain Python it is exported:

    python examples/show_set.py                      # Stratstone, into the current folder
    python examples/show_set.py terrain out/         # the terrain game's set, into out/

which writes GAME-set.step (millimetres, coloured, a product per part: FreeCAD, Fusion,
Onshape open it) and GAME-set.glb (metres, for any glTF viewer). One part alone:
``stratstone_cad.models.part("stratstone/stone-red-03", height_mm=8)``.
"""

import sys
from pathlib import Path

from stratstone_cad import models


def main(argv: list[str]) -> int:
    """Export the set of ``argv[0]`` (Stratstone by default) into the folder ``argv[1]``
    (the current one by default); a bad game or folder is one line, exit code 2."""
    from stratstone_cad.base.fileio import atomic_write_all, ensure_writable_dir
    from stratstone_cad.errors import UserError, printable
    from stratstone_cad.occ.step import assembly_glb, assembly_step

    game = argv[0] if argv else "stratstone"
    try:
        out = ensure_writable_dir(Path(argv[1]) if len(argv) > 1 else Path())  # before the minutes of CAD work
        assy = models.assembly(game)
        step, glb = out / f"{game}-set.step", out / f"{game}-set.glb"
        atomic_write_all([(step, assembly_step(assy)), (glb, assembly_glb(assy))])  # both or neither
    except UserError as e:
        print(f"show_set.py: error: {printable(str(e))}", file=sys.stderr)
        return 2
    print(printable(f"wrote {step} and {glb}"))
    return 0


if "show_object" in globals():  # CQ-editor and ocp_vscode's show_object
    show_object(models.assembly("stratstone"), name="stratstone")  # noqa: F821 (given by the editor)
elif __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
