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

game = sys.argv[1] if len(sys.argv) > 1 and __name__ == "__main__" else "stratstone"
assy = models.assembly(game)

if "show_object" in globals():  # CQ-editor and ocp_vscode's show_object
    show_object(assy, name=game)  # noqa: F821 (given by the editor)
elif __name__ == "__main__":
    from stratstone_cad.occ.step import assembly_glb, assembly_step

    out = Path(sys.argv[2]) if len(sys.argv) > 2 else Path()
    out.mkdir(parents=True, exist_ok=True)
    (out / f"{game}-set.step").write_bytes(assembly_step(assy))
    (out / f"{game}-set.glb").write_bytes(assembly_glb(assy))
    print(f"wrote {out / f'{game}-set.step'} and {out / f'{game}-set.glb'}")
