"""Replays and sets as one HTML page that plays offline from a file: the page holds the
player (three.js and ours, bundled: ``viewer/web/player.min.js``, made by
``tools/web/build.sh`` from the pinned npm packages) and the scene's glTF, base64, which
the player decodes and parses in memory; a page written to a file holds both gzipped,
unpacked by the browser (:func:`page`). It makes no network request (its content
security policy forbids any), so it can be mailed, put on a USB stick or opened from a
phone's files and plays the same.
"""

from __future__ import annotations

import base64
import gzip
import html
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any

__all__ = ["page", "write_replay", "write_set"]


def _asset(name: str) -> str:
    return (resources.files("stratstone_cad.viewer") / "web" / name).read_text(encoding="utf-8")


def _gzip64(data: bytes) -> str:
    """``data`` gzipped (no time stamp: the same bytes give the same page) in base64."""
    return base64.b64encode(gzip.compress(data, 9, mtime=0)).decode("ascii")


@lru_cache(maxsize=1)
def _packed_player() -> str:
    return _gzip64(_asset("player.min.js").encode("utf-8"))


def page(glb: bytes, title: str, packed: bool = False) -> str:
    """The page for the GLB ``glb``, titled ``title``. ``packed``: the player and the GLB
    gzipped, which the page unpacks with the browser's ``DecompressionStream`` (Chrome 80,
    Firefox 113, Safari 16.4 and later): a file to share is about a third of the size; the
    studio serves its pages unpacked (over HTTP, which compresses them itself)."""
    template = _asset("player.html")
    if packed:
        player = f'<script id="player" type="application/gzip">{_packed_player()}</script>'
        data, encoding = _gzip64(glb), ' data-encoding="gzip"'
    else:
        bundle = _asset("player.min.js")
        if "</script" in bundle.lower():  # the bundle is inlined in a script element
            raise RuntimeError("the player bundle holds '</script': it cannot be inlined")
        player, data, encoding = f"<script>{bundle}</script>", base64.b64encode(glb).decode("ascii"), ""
    return (template.replace("{{TITLE}}", html.escape(title))
            .replace("{{GLB_ENCODING}}", encoding)
            .replace("{{GLB}}", data)
            .replace("{{PLAYER}}", player))


def write_set(assets: Any, out: Path) -> int:
    """Write ``assets`` as one page of parts to orbit (``preview ... --out set.html``)."""
    from stratstone_cad.base.fileio import atomic_write
    from stratstone_cad.viewer import gltf

    data = page(gltf.set_glb(assets), "stratstone-cad: parts", packed=True).encode("utf-8")
    atomic_write(out, data, follow_symlinks=True, sweep=True)
    return len(data)


def write_replay(rep: Any, log: Path, out: Path, seconds_per_ply: float = 1.0, colours: str = "levels",
                 reach: bool = True) -> int:
    """Write the replay of the log ``log`` (loaded as ``rep``) to ``out`` as one HTML page,
    whole or not at all (``reach``: the page opens with the reach shown); returns its size."""
    from stratstone_cad.base.fileio import atomic_write
    from stratstone_cad.viewer import gltf

    gltf.check_plies(rep, out)
    data = page(gltf.replay_bytes(rep, log, seconds_per_ply, colours, reach), f"{rep.title}: replay",
                packed=True).encode("utf-8")
    atomic_write(out, data, follow_symlinks=True, sweep=True)
    return len(data)
