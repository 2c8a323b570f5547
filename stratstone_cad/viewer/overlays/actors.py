"""The overlays in the replay window: VTK actors added to the scene once, into which each
ply's :class:`~stratstone_cad.viewer.overlays.plan.Drawing` is set (see
:mod:`stratstone_cad.viewer.overlays`)."""

from __future__ import annotations

from typing import Any

from stratstone_cad.viewer.overlays import shapes
from stratstone_cad.viewer.overlays.plan import Plan
from stratstone_cad.viewer.overlays.style import (
    BAND_OPACITY,
    GHOST_COLOUR,
    GHOST_OPACITY,
    GHOST_PIECE_OPACITY,
    MARK_COLOUR,
    PATH_COLOUR,
    REACH_COLOUR,
    REACH_OPACITY,
    RING,
    RING_TUBE,
    TUBE,
    unit_rgb,
)
from stratstone_cad.viewer.overlays.text import Caption, Labels, font_px

__all__ = ["Overlays"]


class Overlays(Plan):
    """The caption and the drawings of a replay's scene (see :mod:`stratstone_cad.viewer.overlays`):
    added to ``plotter`` once, hidden until a ply needs them. :meth:`show` puts up a ply's."""

    def __init__(self, plotter: Any, rep: Any, size: tuple[int, int], scale: int = 1, reach: bool = False) -> None:
        """``rep``: the loaded game (its table and plies); ``size`` and ``scale`` as the
        scene's; ``reach``: light the squares the piece to move could reach."""
        super().__init__(rep, reach)
        self.p = plotter
        self.path = self._actor("overlay-path", PATH_COLOUR)
        self.win = [self._actor("overlay-win", MARK_COLOUR), self._actor("overlay-win-band", MARK_COLOUR, BAND_OPACITY)]
        self.band = self._actor("overlay-band", MARK_COLOUR, BAND_OPACITY)
        self.edges = self._actor("overlay-band-edge", MARK_COLOUR)
        self.lit = self._actor("overlay-reach", REACH_COLOUR, REACH_OPACITY)
        self.stars = self._actor("overlay-stars", MARK_COLOUR)
        self.ghosts = [self._actor("overlay-ghost-path", GHOST_COLOUR, GHOST_OPACITY),
                       self._actor("overlay-ghost-square", GHOST_COLOUR, GHOST_OPACITY),
                       self._actor("overlay-ghost-piece", GHOST_COLOUR, GHOST_PIECE_OPACITY)]
        self.ghost_meshes: dict[str, Any] = {}  # a part's mesh as the ghost's piece, made once
        halo = shapes.halo(self.pitch)
        self.halos = [self._actor(f"overlay-halo-{i}", c, mesh=halo) for i, c in enumerate((PATH_COLOUR, MARK_COLOUR))]
        # the labels over the scene, each drawn over those added before it: the reach's
        # costs (many), the path's steps, the sums, the caption over all
        chip = font_px(size, 40, scale)  # pixels: 20 at 640 x 360 and 1280 x 720
        self.costs = Labels(plotter, "overlay-costs", chip, REACH_COLOUR)
        self.steps = Labels(plotter, "overlay-steps", chip, PATH_COLOUR)
        self.sums = [Labels(plotter, f"overlay-sum-{i}", chip, c) for i, c in enumerate((PATH_COLOUR, MARK_COLOUR))]
        self.caption = Caption(plotter, size, scale)
        self.ply = -1
        self.lines: tuple[Any, Any] = (None, None)  # the ply's winning lines, shown once it is done

    def _actor(self, name: str, colour: str, opacity: float = 1.0, mesh: Any = None) -> Any:
        # start-up speed: VTK only where something is rendered
        from vtkmodules.vtkRenderingCore import vtkActor, vtkPolyDataMapper

        mapper = vtkPolyDataMapper()
        mapper.ScalarVisibilityOff()
        if mesh is not None:
            mapper.SetInputData(mesh)
        actor = vtkActor()
        actor.SetMapper(mapper)
        prop = actor.GetProperty()
        prop.SetColor(*unit_rgb(colour))
        prop.SetOpacity(opacity)
        prop.SetAmbient(0.45)  # lit, but its colour stays its colour on any side
        prop.SetDiffuse(0.65)
        prop.SetSpecular(0.0)
        actor.SetVisibility(False)
        self.p.add_actor(actor, reset_camera=False, name=name, pickable=False)
        return actor

    @staticmethod
    def _set(actor: Any, mesh: Any) -> None:
        """Put ``mesh`` into ``actor`` (None or empty: hide it)."""
        shown = mesh is not None and mesh.n_points > 0
        if shown:
            actor.GetMapper().SetInputData(mesh)
        actor.SetVisibility(shown)

    def _ghost_piece(self, ply: Any) -> None:
        """The ghost's piece: the piece itself, in its colour and see-through, where the
        ghost's move would have it rest (:meth:`Plan.ghost_piece`); hidden where none."""
        from stratstone_cad.viewer.meshes import asset_mesh
        from stratstone_cad.viewer.preview import polydata

        found = self.ghost_piece(ply)
        actor = self.ghosts[2]
        if found is None:
            actor.SetVisibility(False)
            return
        pid, (x, y, z) = found
        asset = self.rep.assets[self.rep.table.assets[pid]]
        if asset.name not in self.ghost_meshes:
            self.ghost_meshes[asset.name] = polydata(asset_mesh(asset))
        self._set(actor, self.ghost_meshes[asset.name])
        ax, ay, az = self.rep.anchors[pid]
        actor.SetPosition(x - ax, y - ay, z - az)
        actor.GetProperty().SetColor(*unit_rgb(asset.colour))

    def show(self, ply: int, done: bool, text: str) -> None:
        """The overlays of ``ply`` (0: the start, none), ``done`` when its animation is
        over (the winning line waits for it), with ``text`` as the caption."""
        self.caption.set(text)
        if ply != self.ply:
            self._build(self.rep.plies[ply - 1] if ply else None)
            self.ply = ply
        for actor, mesh in zip(self.win, self.lines, strict=True):
            self._set(actor, mesh if done else None)

    def _build(self, ply: Any) -> None:
        """Set a ply's drawings and labels into the actors (``ply`` None: the start, none)."""
        import pyvista as pv

        d = self.draw(ply)
        self._set(self.path, shapes.tubes(d.tubes, TUBE * self.pitch) if d.tubes else None)
        self.steps.set(d.steps)
        for halo, at, (labels, side), chips in zip(self.halos, d.halos, d.sums, self.sums, strict=True):
            if at is not None:
                halo.SetPosition(*at)
            halo.SetVisibility(at is not None)
            chips.set(labels, side)
        self._set(self.band, shapes.flat(d.band) if d.band else None)
        self._set(self.edges, shapes.flat(d.edges) if d.edges else None)
        if d.rings:
            ring = pv.ParametricTorus(ringradius=RING * self.pitch, crosssectionradius=RING_TUBE * self.pitch, u_res=48,
                                      v_res=10, w_res=2)
            self.lines = (pv.merge([ring.translate(tuple(c), inplace=False) for c in d.rings]), shapes.flat(d.cells))
        else:
            self.lines = (None, None)
        tubes, outlines = self.ghost(ply)
        self._set(self.ghosts[0], shapes.tubes(tubes, TUBE * self.pitch) if tubes else None)
        self._set(self.ghosts[1], shapes.flat(outlines) if outlines else None)
        self._ghost_piece(ply)
        self._set(self.lit, shapes.flat(d.lit) if d.lit else None)
        self._set(self.stars, shapes.flat(d.stars) if d.stars else None)
        self.costs.set(d.costs)
