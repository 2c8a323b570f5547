"""The replay's window: the keys and the play button that step through the plies."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from stratstone_cad.viewer.preview import need_display
from stratstone_cad.viewer.replay.loading import GameOnTable
from stratstone_cad.viewer.replay.scene import Scene

# --------------------------------------------------------------------------- the window


class Controls:
    """What the keys, the slider and the play timer do: a ply and a frame within it."""

    def __init__(self, scene: Scene, per_ply: int, redraw: Callable[[], None] | None = None) -> None:
        self.scene, self.per_ply = scene, per_ply
        self.ply, self.frame = 0, per_ply
        self.playing = False
        self.redraw = redraw or (lambda: None)
        self.slider: Any = None  # the window's slider, set by bind

    def _go(self, ply: int, frame: int | None = None) -> None:
        self.ply = max(0, min(self.scene.rep.count, ply))
        self.frame = self.per_ply if frame is None else frame
        self.scene.show(self.ply, self.frame / self.per_ply)
        if self.slider is not None and round(self.slider.GetRepresentation().GetValue()) != self.ply:
            self.slider.GetRepresentation().SetValue(self.ply)  # the slider follows the keys and the play
        self.redraw()

    def next(self) -> None:
        """Right: the position after the next ply."""
        self._go(self.ply + 1)

    def previous(self) -> None:
        self._go(self.ply - 1)

    def first(self) -> None:
        self._go(0)

    def last(self) -> None:
        self._go(self.scene.rep.count)

    def toggle(self) -> None:
        """Space: play from here (from the start when at the end), or pause."""
        if not self.playing and self.ply >= self.scene.rep.count:
            self._go(0)
        self.playing = not self.playing

    def seek(self, value: float) -> None:
        """The slider: to the end of ply ``value`` (a move of the slider made by _go itself is no seek)."""
        if round(value) != self.ply or self.frame != self.per_ply:
            self._go(round(value))

    def tick(self) -> None:
        """One frame of play: the next frame of the next ply; stops at the end."""
        if not self.playing:
            return
        if self.frame >= self.per_ply:
            if self.ply >= self.scene.rep.count:
                self.playing = False
                return
            self._go(self.ply + 1, 1)
        else:
            self._go(self.ply, self.frame + 1)


KEYS = {"Right": "next", "Left": "previous", "Home": "first", "End": "last", "space": "toggle"}


class StripView:
    """The review's evaluation strip under the window's scene (``replay LOG --review``): a
    renderer of its own along the bottom of the window drawing the pictures' strip
    (:func:`~stratstone_cad.viewer.review_strip.strip_pixels`) for the ply shown, at the
    window's width, the scene's renderer above it."""

    def __init__(self, scene: Scene) -> None:
        from vtkmodules.vtkCommonDataModel import vtkImageData
        from vtkmodules.vtkRenderingCore import vtkActor2D, vtkImageMapper, vtkRenderer

        from stratstone_cad.viewer.review_strip import strip_height

        self.scene, self.ply = scene, 0
        self.image = vtkImageData()
        mapper = vtkImageMapper()
        mapper.SetInputData(self.image)
        mapper.SetColorWindow(255)  # the pixels as they are
        mapper.SetColorLevel(127.5)
        actor = vtkActor2D()
        actor.SetMapper(mapper)
        self.renderer = vtkRenderer()
        self.renderer.AddViewProp(actor)
        self.renderer.SetBackground(40 / 255, 40 / 255, 40 / 255)
        scene.p.ren_win.AddRenderer(self.renderer)
        # the window grows by the strip: the scene keeps the size its caption and camera were laid out for
        w, h = scene.p.window_size
        total = h
        while total - strip_height(total) < h:
            total += 1
        scene.p.window_size = (w, total)
        scene.p.ren_win.AddObserver("WindowResizeEvent", lambda *_: self.update(self.ply))
        self.update(0)

    def update(self, ply: int) -> None:
        """The strip of ``ply`` at the window's size (the scene's renderer keeps the rest)."""
        from vtkmodules.util.numpy_support import numpy_to_vtk

        from stratstone_cad.viewer.review_strip import strip_height, strip_pixels

        self.ply = ply
        w, h = self.scene.p.ren_win.GetSize()
        sh = strip_height(h)
        self.scene.p.renderer.SetViewport(0, sh / h, 1, 1)
        self.renderer.SetViewport(0, 0, 1, sh / h)
        rep = self.scene.rep
        pixels = strip_pixels(rep.review or [], rep.players, ply, w, sh)[::-1]  # VTK's rows go up
        self.image.SetDimensions(w, sh, 1)
        self.image.GetPointData().SetScalars(numpy_to_vtk(pixels.reshape(-1, 3).copy(), deep=True))
        self.image.Modified()


def bind(scene: Scene, per_ply: int, fps: int) -> Controls:
    """Bind the keys, the slider and the play timer of ``scene``'s plotter to new Controls."""
    p = scene.p
    strip = StripView(scene) if scene.rep.review else None

    def redraw() -> None:
        if strip is not None:
            strip.update(controls.ply)
        if getattr(p, "_rendered", True):
            p.render()

    controls = Controls(scene, per_ply, redraw=redraw)
    for key, method in KEYS.items():
        p.add_key_event(key, getattr(controls, method))
    slider = p.add_slider_widget(lambda v: controls.seek(v), [0, max(scene.rep.count, 1)], value=0, title="ply",
                                 pointa=(0.55, 0.08), pointb=(0.95, 0.08), fmt="%.0f", style="modern",
                                 interaction_event="always")
    controls.slider = slider
    if p.iren is not None and not p.off_screen:
        p.iren.add_observer("TimerEvent", lambda *_: controls.tick())
        p.iren.create_timer(max(10, 1000 // fps), repeating=True)
    controls.first()
    return controls


def show_window(rep: GameOnTable, per_ply: int, fps: int, colours: str = "levels", reach: bool = True) -> None:
    """The interactive window (it needs a display); ``reach`` as :class:`Scene`'s, on by default here."""
    need_display("replay", "--out FILE.html (a page that plays in any browser), FILE.gif, .mp4, .png, .glb or a folder")
    scene = Scene(rep, (1280, 800), off_screen=False, colours=colours, reach=reach)
    bind(scene, per_ply, fps)
    scene.p.add_text("Left/Right: ply   Home/End: first/last   Space: play/pause   drag: orbit", position="lower_left",
                     font_size=9, color="black")
    scene.p.show(title=f"stratstone-cad replay: {rep.title}")
