"""Writing the viewer's off-screen output: a PNG still, a GIF, an MP4 or a folder of PNG
frames, from any stream of rendered frames (the preview's turntable, the replay).

Files are written whole or not at all: into a temporary file (or folder) beside the target,
``.NAME.XXXXXXXX.tmp``, held under an exclusive lock while it is written and renamed over
the target once complete (:class:`~stratstone_cad.base.fileio.Staged`, every writer's). Every write error is raised as a one-line
:class:`~stratstone_cad.base.fileio.OutputError` and leaves the target as it was. That is why
the project writes GIFs (Pillow) and MP4s (imageio-ffmpeg) itself rather than through
PyVista's ``open_gif``/``open_movie``: their ``close()`` swallows a failed write, and a
file cut short by a full disk would be published with success. An MP4 is also checked for
a complete index, as ffmpeg can end with status 0 after failing to write it. What a killed
export leaves is swept by the next export of the same name (:func:`~stratstone_cad.base.fileio.sweep_temporary`).
"""

from __future__ import annotations

import io
import itertools
import math
import os
import re
import shutil
import stat
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from stratstone_cad.base.fileio import (
    OutputError,
    Staged,
    describe_os_error,
    kind_of,
    sweep_temporary,
    too_long_to_write,
    umask,
    write_target,
)
from stratstone_cad.base.progress import ProgressBar
from stratstone_cad.errors import ParameterError, UserError, listed
from stratstone_cad.viewer import DEFAULT_SIZE

__all__ = ["GIF_FPS", "GIF_PIXELS", "check_frames", "check_target", "publish"]

#: A GIF's frames are all held in memory until it is written (Pillow writes a GIF whole):
#: at most this many pixels of frames (about 1.5 GB); an MP4 or a folder of PNGs streams.
GIF_PIXELS = 250_000_000
#: A GIF's frame delay is counted in hundredths of a second, and viewers slow delays under
#: 2 hundredths down: at most 50 frames a second.
GIF_FPS = 50

#: Suffixes of files (ours and their likes): a name that is one of them alone (``.html``,
#: ``..png``) has no name before its suffix and is refused, not made a hidden folder of frames.
FILE_SUFFIXES = frozenset({".gif", ".mp4", ".png", ".glb", ".html", ".htm", ".gltf", ".jpg", ".jpeg", ".webp",
                           ".webm", ".mov", ".avi", ".mkv", ".jsonl", ".json", ".toml"})

_NAMES = {".gif": "FILE.gif", ".mp4": "FILE.mp4", ".png": "FILE.png", ".glb": "FILE.glb", ".html": "FILE.html",
          "dir": "a new folder for the PNG frames"}


def _expected(kinds: Sequence[str]) -> str:
    return listed([_NAMES[k] for k in kinds], "or")


def check_target(out: Path, kinds: Sequence[str], size: tuple[int, int] = DEFAULT_SIZE, flag: str = "--out") -> str:
    """The kind of an output target, one of ``kinds`` (``.gif``, ``.mp4``, ``.png``, and ``dir``: a new folder for PNG
    frames, a name without a suffix where nothing is yet), refused in one line before anything is rendered: a name too
    long for its temporary, an existing folder, a FIFO or device (or a link to one), a missing folder, another suffix,
    an odd MP4 size. A symbolic link to a file (or to nothing yet) is a target like a file: :func:`publish` writes
    through it, the link stays. Every export (the preview's stills, sheets and turntables, the replay's) is checked
    here first.

    Raises:
        UserError: the path is too long, has no name, its folder does not exist, or something else is there.
        ParameterError: the suffix is not a kind it writes, or an MP4's size is odd.
    """
    too_long = too_long_to_write(out)  # the one rule and message of every writer
    if too_long:
        raise UserError(f"{flag} {out}: {too_long}")
    expected = _expected(kinds)
    if not out.name or out.name in (".", ".."):
        raise UserError(f"{flag} {out}: expected {expected}")
    bare = "." + out.name.lstrip(".").lower()
    if bare in FILE_SUFFIXES:  # ".html" is a hidden name without a suffix to Path: a folder of frames named .html
        raise UserError(f"{flag} {out}: a suffix with no name before it; expected {expected}, such as game{bare}")
    suffix = out.suffix.lower()
    lands = out  # where the write lands: the path, or a link's target
    try:
        st: os.stat_result | None = os.lstat(out)
    except FileNotFoundError:
        st = None
    except OSError as e:
        raise UserError(f"{flag} {out}: cannot be written ({describe_os_error(e)}); expected {expected}") from None
    if st is not None and stat.S_ISLNK(st.st_mode):
        lands = Path(os.path.realpath(out))
        try:
            st = os.stat(out)
        except FileNotFoundError:
            st = None  # a link to nothing yet: its target is made
        except OSError as e:
            raise UserError(f"{flag} {out}: cannot be written ({describe_os_error(e)}); expected {expected}") from None
        if st is not None and not stat.S_ISREG(st.st_mode):
            raise UserError(f"{flag} {out}: a symbolic link to {kind_of(st.st_mode)}; expected {expected} (a file, "
                            "or a link to one)")
        if not suffix:  # what to write is told by the name's suffix (/dev/stdout has none)
            what = f"to the file {lands}" if st is not None else f"to {lands}, which does not exist"
            raise UserError(f"{flag} {out}: a symbolic link {what}, and no suffix in its name to say what to "
                            f"write there; expected {expected}")
    elif st is not None:
        if stat.S_ISDIR(st.st_mode):
            raise UserError(f"{flag} {out}: the folder exists; expected {expected}")
        if not stat.S_ISREG(st.st_mode):
            raise UserError(f"{flag} {out}: is {kind_of(st.st_mode)}; expected {expected}")
        if not suffix:
            raise UserError(f"{flag} {out}: a file is there; expected {expected}")
    if not lands.parent.is_dir():
        via = f"a symbolic link to {lands}, but " if lands != out else ""
        raise UserError(f"{flag} {out}: {via}the folder {lands.parent} does not exist")
    kind = suffix or "dir"
    if kind not in kinds:
        raise ParameterError(f"{flag} {out}: expected {expected}")
    if kind == ".mp4" and (size[0] % 2 or size[1] % 2):
        raise ParameterError(f"--size {size[0]}x{size[1]}: expected an even width and height for an MP4 (H.264)")
    return kind


def check_frames(out: Path, kind: str, frames: int, size: tuple[int, int], fps: int, flag: str = "--out",
                 fewer: str = "fewer frames") -> None:
    """Refuse, in one line, a GIF whose frame rate it cannot store or whose frames would not
    fit in memory (``fewer`` says how to ask for fewer).

    Raises:
        ParameterError: a GIF's frame rate or its frames' memory is too much.
    """
    if kind != ".gif":
        return
    if fps > GIF_FPS:
        raise ParameterError(f"--fps {fps}: a GIF counts its frame delays in hundredths of a second; expected at "
                             f"most {GIF_FPS} for a GIF (or an MP4)")
    if frames * size[0] * size[1] > GIF_PIXELS:
        raise ParameterError(f"{flag} {out}: a GIF of {frames} frames at {size[0]}x{size[1]} is held whole in "
                             f"memory (about {frames * size[0] * size[1] * 6 / 1e9:.1f} GB); expected at most "
                             f"{GIF_PIXELS // 1_000_000} million pixels of frames: {fewer}, a smaller --size, "
                             "or an MP4")


def publish(out: Path, kind: str, frames: Iterable[np.ndarray], *, fps: int = 10, bar: ProgressBar | None = None,
            flag: str = "--out", hold_s: float = 0.0) -> int:
    """Write ``frames`` (RGB or RGBA images of one size, rendered as they are asked for)
    to ``out`` as ``kind`` (from :func:`check_target`); returns the frames the file holds
    (a GIF stores a run of equal frames as one, shown as long). A GIF or MP4 shows its last
    frame for at least ``hold_s`` seconds (the end of a game, before a GIF loops). The
    temporary is made before the first frame is asked for. A new file or folder gets the
    permissions the umask allows; a replaced file keeps its own. ``frames`` is closed
    (a generator's ``finally`` runs) whatever happens.

    Raises:
        OutputError: the file cannot be written.
    """
    try:
        target = out if kind == "dir" else write_target(out, follow_symlinks=True)
        sweep_temporary(target.parent, re.escape(target.name))  # what a killed export of this name left
        try:
            tmp = Staged(target, folder=kind == "dir")
        except OSError as e:
            raise OutputError(f"{flag} {out}: cannot write ({describe_os_error(e)})") from None
        bar = bar or ProgressBar(1, None)  # silent
        try:
            n = _write(iter(frames), tmp.path, kind, fps, bar, hold_s)
            _close(frames)  # the scene is gone before the file appears
            tmp.publish()  # a file replaced keeps its permissions
        except OSError as e:
            raise OutputError(f"{flag} {out}: cannot write ({describe_os_error(e)})") from None
        finally:
            if tmp.fd >= 0:  # first: nothing the bar does (a terminal gone) can keep the temporary
                tmp.discard()
            bar.close()
    finally:
        _close(frames)
    return n


def _close(frames: Iterable[Any]) -> None:
    close = getattr(frames, "close", None)
    if close is not None:
        close()


def _same_gif_frame(a: Any, b: Any) -> bool:
    """Whether two quantized GIF frames show the same picture (their pixels and palettes)."""
    return a.tobytes() == b.tobytes() and a.getpalette() == b.getpalette()


def gif_delay(i: int, fps: int) -> int:
    """Frame ``i``'s delay in milliseconds, whole hundredths of a second (as a GIF stores
    them), alternating so that the frames keep ``fps`` on average (40 fps: 2 and 3 hundredths)."""
    return 10 * (round(100 * (i + 1) / fps) - round(100 * i / fps))


def png(image: np.ndarray) -> bytes:
    # start-up speed: Pillow only where an image is written
    from PIL import Image

    buf = io.BytesIO()
    Image.fromarray(image).save(buf, format="PNG", optimize=False)
    return buf.getvalue()


def _write(frames: Iterable[np.ndarray], tmp: Path, kind: str, fps: int, bar: ProgressBar, hold_s: float = 0.0) -> int:
    """Every frame into ``tmp``: one PNG, PNG files in a folder, a GIF (Pillow, written
    whole at the end) or an MP4 (H.264 through imageio-ffmpeg, streamed), the last frame
    of either shown ``hold_s`` seconds at least. Every write error is raised, none is
    swallowed. Returns the frames the file holds."""
    if kind == ".png":
        with open(tmp, "wb") as fh:
            fh.write(png(next(iter(frames))))
        bar.reach(1)
        return 1
    if kind == "dir":
        os.chmod(tmp, 0o777 & ~umask())  # mkdtemp makes it private; the frames are the user's
        n = 0
        for n, image in enumerate(frames, 1):
            with open(tmp / f"frame-{n:05d}.png", "wb") as fh:
                fh.write(png(image))
            bar.reach(n)
        return n
    if kind == ".gif":
        return _write_gif(frames, tmp, fps, bar, hold_s)
    return _write_mp4(frames, tmp, fps, bar, hold_s)


def _write_gif(frames: Iterable[np.ndarray], tmp: Path, fps: int, bar: ProgressBar, hold_s: float) -> int:
    """The frames as a GIF (Pillow, written whole at the end), equal frames in a row as one
    shown as long, the last shown ``hold_s`` seconds at least; returns the frames it holds."""
    from PIL import Image  # start-up speed: Pillow only where a GIF is written

    images: list[Any] = []
    delays: list[int] = []
    for i, image in enumerate(frames):
        frame = Image.fromarray(image).quantize(256, dither=Image.Dither.NONE)
        delay = gif_delay(i, fps)
        if images and _same_gif_frame(images[-1], frame):
            delays[-1] += delay  # one frame shown as long (Pillow would merge them unsaid)
        else:
            images.append(frame)
            delays.append(delay)
        bar.reach(i + 1)
    delays[-1] = max(delays[-1], 10 * math.ceil(100 * hold_s - 1e-9))
    with open(tmp, "wb") as fh:
        images[0].save(fh, format="GIF", save_all=True, append_images=images[1:], loop=0, duration=delays)
    return len(images)


def _write_mp4(frames: Iterable[np.ndarray], tmp: Path, fps: int, bar: ProgressBar, hold_s: float) -> int:
    """The frames as an MP4 (H.264 through imageio-ffmpeg, streamed), the last held ``hold_s``
    seconds at least; returns the frames it holds."""
    # start-up speed: ffmpeg only where a video is written
    import imageio_ffmpeg

    it = iter(frames)
    first = next(it)
    h, w = first.shape[:2]
    writer = imageio_ffmpeg.write_frames(str(tmp), (w, h), fps=fps, codec="libx264", quality=6, macro_block_size=1,
                                         pix_fmt_out="yuv420p", ffmpeg_log_level="quiet",
                                         output_params=["-f", "mp4", "-preset", "veryfast", "-threads", "1"])
    writer.send(None)
    n = 0
    try:
        try:
            image = first
            for n, image in enumerate(itertools.chain([first], it), 1):
                writer.send(np.ascontiguousarray(image[:, :, :3]))
                bar.reach(n)
            for _ in range(math.ceil(hold_s * fps - 1e-9) - 1):  # the last frame, held
                writer.send(np.ascontiguousarray(image[:, :, :3]))
                n += 1
        finally:
            writer.close()
    except (OSError, RuntimeError):  # imageio-ffmpeg's long message (the command, the temporary name): a short one
        full = shutil.disk_usage(tmp.parent).free < 4 << 20
        raise OSError("No space left on device" if full else "the video encoder (ffmpeg) stopped") from None
    check_mp4(tmp)
    return n


def check_mp4(path: Path) -> None:
    """The MP4's top-level boxes tile the file and include the index (``moov``): ffmpeg can
    end with status 0 after a write of it failed (a full disk, a file-size limit), leaving a
    file no player opens. Raises OSError naming what is wrong."""
    size = path.stat().st_size
    seen, at = set(), 0
    with open(path, "rb") as fh:
        while at < size:
            fh.seek(at)
            head = fh.read(16)
            if len(head) < 8:
                break
            n, box = int.from_bytes(head[:4], "big"), head[4:8]
            if n == 1 and len(head) == 16:
                n = int.from_bytes(head[8:16], "big")  # a 64-bit size
            elif n == 0:
                n = size - at  # to the end of the file
            if n < 8:
                break
            seen.add(box)
            at += n
    if at != size or b"moov" not in seen:
        raise OSError(f"the video came out cut short ({size} bytes), the disk may be full")
