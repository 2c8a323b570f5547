"""The text the replay draws over its scene: the caption in the upper left corner and the
labels (chips) at points of the scene, at font sizes that read in a small GIF."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from stratstone_cad.viewer.overlays.style import PANEL_OPACITY, unit_rgb

__all__ = ["MIN_FONT_PX", "Caption", "Labels", "font_px"]


def _ink(colour: str) -> tuple[float, float, float]:
    """Black or white, whichever reads on ``colour``."""
    r, g, b = unit_rgb(colour)
    return (0.0, 0.0, 0.0) if 0.299 * r + 0.587 * g + 0.114 * b > 0.55 else (1.0, 1.0, 1.0)


#: The smallest font size (VTK's, pixels) of any text drawn over a scene: its letters stand
#: 14 px or more from a capital's top to the baseline, readable in a 640 x 360 GIF.
MIN_FONT_PX = 20


def font_px(size: tuple[int, int], per_height: float, scale: int = 1) -> int:
    """A font size in pixels for an image ``size`` (width, height) rendered ``scale`` times
    larger: a ``per_height``-th of its height, and :data:`MIN_FONT_PX` at least from 360 px
    high up (a smaller image, a thumbnail, keeps its scene: 12 px at least)."""
    return round(max(size[1] / per_height, min(float(MIN_FONT_PX), max(12.0, size[1] / 18))) * scale)


class Caption:
    """The overlay's lines in the upper left corner, at a fixed size in pixels (VTK's
    corner annotation, used before, shrinks its text to keep a line within half the image
    and draws nothing past about 90 characters). A line wider than the room is wrapped: at
    its "; " first (an explanation's parts: the walk, the attack, the capture), then
    between words."""

    def __init__(self, plotter: Any, size: tuple[int, int], scale: int = 1) -> None:
        """``size``: the image's width and height; ``scale``: the render's factor over it."""
        # start-up speed: VTK only where something is rendered
        import vtkmodules.vtkRenderingFreeType  # noqa: F401 - the text renderer's FreeType implementation
        from vtkmodules.vtkRenderingCore import vtkTextActor, vtkTextRenderer

        self.p = plotter
        w, h = size[0] * scale, size[1] * scale
        self.font = font_px(size, 30, scale)  # pixels: 20 at 640 x 360, 24 at 1280 x 720
        self.margin = 0.8 * self.font  # clear of the image's corner
        self.right = w - self.margin  # where a line must end
        self.actor = vtkTextActor()
        prop = self.actor.GetTextProperty()
        prop.SetFontSize(self.font)
        prop.SetColor(0.0, 0.0, 0.0)
        prop.SetBackgroundColor(1.0, 1.0, 1.0)
        prop.SetBackgroundOpacity(PANEL_OPACITY)
        prop.SetVerticalJustificationToTop()
        self.actor.SetPosition(self.margin, h - self.margin)
        plotter.add_actor(self.actor, reset_camera=False, name="overlay-caption", pickable=False)
        self.measure = vtkTextRenderer()
        self.text: str | None = None

    def set(self, text: str) -> None:
        """Show ``text`` (lines), each wrapped to the room."""
        if text != self.text:
            self.actor.SetInput(self.wrap(text))
            self.text = text

    def clear_of(self, boxes: Iterable[tuple[float, float, float, float]]) -> None:
        """Wrap the lines short of the boxes (left, top, right, bottom in pixels from the
        upper left) that reach the caption's corner: the legend of levels."""
        for left, top, _, _ in boxes:
            if top < 8 * self.font:
                self.right = min(self.right, left - self.margin)

    def width(self, line: str) -> int:
        """``line``'s width in pixels, as the caption draws it."""
        box = [0, 0, 0, 0]
        self.measure.GetBoundingBox(self.actor.GetTextProperty(), line or " ", box, self.p.ren_win.GetDPI())
        return box[1] - box[0] + 1

    def height(self, lines: int) -> float:
        """The height in pixels of ``lines`` lines, from the image's top edge."""
        box = [0, 0, 0, 0]
        self.measure.GetBoundingBox(self.actor.GetTextProperty(), "\n".join(["Ag"] * lines), box, self.p.ren_win.GetDPI())
        return self.margin + box[3] - box[2] + 1

    def wrap(self, text: str) -> str:
        """``text`` with each line wrapped to the room (a line is measured with the ";" it
        may end with)."""
        room = self.right - self.margin
        out: list[str] = []
        for line in text.split("\n"):
            current = ""
            for part in line.split("; "):
                joined = f"{current}; {part}" if current else part
                if self.width(joined + ";") <= room:
                    current = joined
                    continue
                if current:
                    out.append(current + ";")
                current = ""
                for word in part.split(" "):
                    joined = f"{current} {word}" if current else word
                    if current and self.width(joined + ";") > room:
                        out.append(current)
                        joined = word
                    current = joined
            out.append(current)
        return "\n".join(out)


class Labels:
    """Short labels at points of the scene, drawn over it as chips (the text on a filled
    box, ``colour``), all of one look: one actor for any number, set anew per ply."""

    def __init__(self, plotter: Any, name: str, font: int, colour: str) -> None:
        # start-up speed: VTK only where something is rendered
        from vtkmodules.vtkRenderingCore import vtkActor2D
        from vtkmodules.vtkRenderingLabel import vtkLabeledDataMapper

        self.mapper = vtkLabeledDataMapper()
        self.mapper.SetLabelModeToLabelFieldData()
        self.mapper.SetFieldDataName("label")
        prop = self.mapper.GetLabelTextProperty()
        prop.SetFontSize(font)
        prop.SetBold(True)
        prop.SetItalic(False)
        prop.SetShadow(False)
        prop.SetColor(*_ink(colour))
        prop.SetBackgroundColor(*unit_rgb(colour))
        prop.SetBackgroundOpacity(1.0)
        prop.SetJustificationToCentered()
        prop.SetVerticalJustificationToCentered()
        self.actor = vtkActor2D()
        self.actor.SetMapper(self.mapper)
        self.actor.SetVisibility(False)
        plotter.add_actor(self.actor, reset_camera=False, name=name, pickable=False)
        self.shown: list[tuple[tuple[float, float, float], str]] = []

    def set(self, items: Sequence[tuple[Sequence[float], str]], side: str = "") -> None:
        """Label each point (mm) with its text, centred on it, or on its ``side``
        (``"left"``: the label ends at the point, ``"right"``: it begins there); none: hidden."""
        from vtkmodules.vtkCommonCore import vtkPoints, vtkStringArray
        from vtkmodules.vtkCommonDataModel import vtkPolyData

        prop = self.mapper.GetLabelTextProperty()
        {"left": prop.SetJustificationToRight, "right": prop.SetJustificationToLeft}.get(side, prop.SetJustificationToCentered)()

        self.shown = [((float(p[0]), float(p[1]), float(p[2])), t) for p, t in items]
        points, texts = vtkPoints(), vtkStringArray()
        texts.SetName("label")
        for p, t in self.shown:
            points.InsertNextPoint(p)
            texts.InsertNextValue(f" {t} ")  # a space each side: the chip's margin
        data = vtkPolyData()
        data.SetPoints(points)
        data.GetPointData().AddArray(texts)
        self.mapper.SetInputData(data)
        self.actor.SetVisibility(bool(self.shown))

