"""Replays and sets as one HTML page that plays offline from a file: the page holds the
player (three.js and ours, bundled: ``viewer/web/player.min.js``, made by
``tools/web/build.sh`` from the pinned npm packages) and the scene's glTF, base64, which
the player decodes and parses in memory. It makes no network request (its content
security policy forbids any), so it can be mailed, put on a USB stick or opened from a
phone's files and plays the same.
"""

from __future__ import annotations

import base64
import html
from importlib import resources
from pathlib import Path
from typing import Any

__all__ = ["page", "write_replay", "write_set"]


def _asset(name: str) -> str:
    return (resources.files("stratstone_cad.viewer") / "web" / name).read_text(encoding="utf-8")


def page(glb: bytes, title: str) -> str:
    """The page for the GLB ``glb``, titled ``title``."""
    template = _asset("player.html")
    player = _asset("player.min.js")
    if "</script" in player.lower():  # the bundle is inlined in a script element
        raise RuntimeError("the player bundle holds '</script': it cannot be inlined")
    return (template.replace("{{TITLE}}", html.escape(title))
            .replace("{{GLB}}", base64.b64encode(glb).decode("ascii"))
            .replace("{{PLAYER}}", player))


def write_set(assets: Any, out: Path) -> int:
    """Write ``assets`` as one page of parts to orbit (``preview ... --out set.html``)."""
    from stratstone_cad.base.fileio import atomic_write
    from stratstone_cad.viewer import gltf

    data = page(gltf.set_glb(assets), "stratstone-cad: parts").encode("utf-8")
    atomic_write(out, data, follow_symlinks=True, sweep=True)
    return len(data)


def write_replay(rep: Any, log: Path, out: Path, seconds_per_ply: float = 1.0, colours: str = "levels",
                 reach: bool = True) -> int:
    """Write the replay of the log ``log`` (loaded as ``rep``) to ``out`` as one HTML page,
    whole or not at all (``reach``: the page opens with the reach shown); returns its size."""
    from stratstone_cad.base.fileio import atomic_write
    from stratstone_cad.viewer import gltf

    gltf.check_plies(rep, out)
    data = page(gltf.replay_bytes(rep, log, seconds_per_ply, colours, reach), f"{rep.title}: replay").encode("utf-8")
    atomic_write(out, data, follow_symlinks=True, sweep=True)
    return len(data)
