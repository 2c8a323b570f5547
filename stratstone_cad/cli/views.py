"""The commands that show: preview (the parts in 3D) and replay (a log on the printed set)."""

from __future__ import annotations

import argparse
import os
import re
import tempfile
from pathlib import Path
from typing import Any

from stratstone_cad.cli.args import (
    add_param_flags,
    file_or_folder,
    file_path,
    integer,
    size_arg,
)
from stratstone_cad.errors import UserError, counted, printable, short_repr


def add_preview(sub: Any) -> None:
    pv_ = sub.add_parser("preview", help="look at assets in 3D: a window, a still (PNG), a turntable (GIF, MP4), a contact "
                                         "sheet, the parts to orbit as glTF or an offline HTML page",
                         description="Show the assets named (game/part such as stratstone/stone-red-03, a whole "
                                     "game, or all when none) in 3D in their print colours: an interactive window "
                                     "(drag to orbit, scroll to zoom, r resets the view), or off screen with --out "
                                     "(.png a still, .gif or .mp4 a turntable, .glb or .html the parts to orbit in a "
                                     "glTF viewer or any browser) or --sheet (a contact sheet, each "
                                     "asset labelled). The meshes are the build's, tessellated more coarsely and "
                                     "cached.")
    pv_.add_argument("assets", nargs="*", metavar="ASSET", help="assets or games (default: every asset)")
    pv_.add_argument("--out", metavar="FILE", type=file_path, default=None,
                     help="FILE.png, FILE.gif, FILE.mp4, FILE.glb or FILE.html")
    pv_.add_argument("--sheet", metavar="FILE.png", type=file_path, default=None, help="a contact sheet of the assets")
    pv_.add_argument("--size", metavar="WxH", default=None, help="image size in pixels (default 1280x720)")
    pv_.add_argument("--frames", metavar="N", type=integer, default=36, help="frames of a turntable (default 36)")
    pv_.add_argument("--fps", metavar="N", type=integer, default=12, help="frames per second of a turntable")
    add_param_flags(pv_)
    pv_.set_defaults(run=cmd_preview)


def cmd_preview(args: argparse.Namespace) -> int:
    """preview: render the parts (still, contact sheet or turntable), or show them in a window.

    Raises:
        UserError: --frames or --fps is out of range, or --out and --sheet are the same file.
    """
    # start-up speed: the parameters only for the commands that read them, not check-log or play
    from stratstone_cad.base.fileio import refuse_reading
    from stratstone_cad.base.overrides import parse_set
    from stratstone_cad.viewer.meshes import list_assets, select
    from stratstone_cad.viewer.preview import contact_sheet, render_still, render_turntable, show
    from stratstone_cad.viewer.writer import check_frames, check_target

    size = size_arg(args.size)
    if not 1 <= args.frames <= 3600 or not 1 <= args.fps <= 120:
        raise UserError(f"--frames {args.frames} --fps {args.fps}: expected 1 to 3600 frames at 1 to 120 frames a second")
    kind = check_target(args.out, (".png", ".gif", ".mp4", ".glb", ".html"), size) if args.out else None
    if kind in (".png", ".gif", ".mp4"):
        check_frames(args.out, kind, args.frames, size, args.fps, fewer="fewer --frames")
    if args.sheet:
        check_target(args.sheet, (".png",), flag="--sheet")
    for flag, out in (("--out", args.out), ("--sheet", args.sheet)):
        if out is not None:
            refuse_reading(out, [("--params file", args.params)], flag)
    if args.out and args.sheet and os.path.realpath(args.out) == os.path.realpath(args.sheet):
        raise UserError(f"--out {args.out} and --sheet {args.sheet}: the same file; expected two files (or one of them)")
    chosen = select(list_assets(sets=parse_set(args.sets), params_file=args.params), args.assets)
    if args.sheet:
        contact_sheet(chosen, args.sheet)
        print(printable(f"wrote {args.sheet}: {counted(len(chosen), 'asset')}"))
    if kind in (".glb", ".html"):  # the parts to orbit, in a glTF viewer or any browser
        from stratstone_cad.base.fileio import atomic_write
        from stratstone_cad.viewer import gltf, web

        if kind == ".glb":
            atomic_write(args.out, gltf.set_glb(chosen), follow_symlinks=True, sweep=True)
        else:
            web.write_set(chosen, args.out)
        print(printable(f"wrote {args.out}: {counted(len(chosen), 'asset')}"))
    elif kind == ".png":
        render_still(chosen, args.out, size)
        print(printable(f"wrote {args.out}: {counted(len(chosen), 'asset')}"))
    elif kind:
        n = render_turntable(chosen, args.out, size, args.frames, args.fps)
        print(printable(f"wrote {args.out}: {counted(n, 'frame')} of {counted(len(chosen), 'asset')}"))
    if not args.out and not args.sheet:
        show(chosen)
    return 0


def add_replay(sub: Any) -> None:
    rp = sub.add_parser("replay", help="replay an engine log as a 3D scene: a window, a GIF, an MP4, a PNG still or "
                                       "frames, an animated glTF or an offline HTML page",
                        description="Replay an engine log on the game's printed set: the board (the terrain "
                                    "from the log's heightmap, coloured by level unless --colours print) and every "
                                    "piece in its print colour, each move "
                                    "animated from the engine's events. A window (Left/Right: previous/next ply, "
                                    "Home/End: first/last, Space: play/pause, a slider to scrub), or off screen "
                                    "with --out: FILE.gif or FILE.mp4 (the whole game), a new folder (one PNG a "
                                    "frame), or FILE.png (the position after --ply N, by default the last). The "
                                    "log is checked first, as check-log does.")
    rp.add_argument("log", metavar="LOG", type=file_path, help="the engine log (JSON Lines) to replay")
    rp.add_argument("--out", metavar="PATH", type=file_or_folder, default=None,
                    help="FILE.gif, FILE.mp4, FILE.png, a new folder for PNG frames, or the scene to share: FILE.glb "
                         "(animated glTF) or FILE.html (one page that plays offline in any browser)")
    rp.add_argument("--review", metavar="FILE", nargs="?", const="", default=None,
                    help="the review of every move (check-log --review) as an evaluation strip along the timeline "
                         "(in the window, the pictures and films, and the page of --out FILE.html, where a click on "
                         "it goes to its ply), each ply's class in the caption and, where the move played was a "
                         "mistake or a blunder, the best move as a green ghost; read from FILE (what check-log "
                         "--review --json wrote) or, without FILE, made now at the game's own search budget (Sage Stones "
                         "2,000 simulations a ply, the others 300)")
    rp.add_argument("--puzzle", metavar="N", type=integer, default=None,
                    help="LOG is a puzzle file (stratstone-cad puzzles): show puzzle N's position (from 1)")
    rp.add_argument("--solution", action="store_true",
                    help="with --puzzle: show the answer (in the caption, and drawn as a ghost) and print it")
    rp.add_argument("--ply", metavar="N", type=integer, default=None,
                    help="with --out FILE.png: the position after ply N (0: the start)")
    rp.add_argument("--plies", metavar="FIRST-LAST", default=None,
                    help="with --out FILE.gif, .mp4 or a folder: only these plies (e.g. 10-20)")
    rp.add_argument("--size", metavar="WxH", default=None, help="image size in pixels (default 1280x720)")
    rp.add_argument("--fps", metavar="N", type=integer, default=10, help="frames per second (default 10)")
    rp.add_argument("--frames-per-ply", metavar="N", type=integer, default=10,
                    help="frames of each ply's animation (default 10)")
    rp.add_argument("--hold", metavar="SECONDS", type=float, default=None,
                    help="with --out FILE.gif or FILE.mp4: how long the last position shows before the film ends or "
                         "the GIF starts again (default 1.5)")
    rp.add_argument("--colours", choices=("levels", "print"), default="levels",
                    help="levels (the default): a board of levels (the terrain game's) coloured by level, with a "
                         "legend of the levels; print: every part in its print colour. For a game without levels "
                         "the two are the same")
    rp.add_argument("--reach", action=argparse.BooleanOptionalAction, default=None,
                    help="the squares the piece to move could reach (the terrain game's): each lit with its walking "
                         "cost, its special moves starred and its exit marked (default: on in the window and "
                         "in the page of --out FILE.html, which has a button for it; off in pictures and films)")
    add_param_flags(rp)
    rp.set_defaults(run=cmd_replay)


def _load(args: argparse.Namespace, folder: Path) -> Any:
    """The replay's game: the log, or puzzle --puzzle N's position (its log written into
    ``folder``) with its task said (printed, and the caption's) and, with --solution, its
    answer; with --review, the review (made now at the game's budget, which is printed)."""
    from stratstone_cad.base.overrides import parse_set
    from stratstone_cad.viewer import replay

    puzzle = None
    if args.puzzle is not None:
        from stratstone_cad.analysis.puzzles import read_puzzle

        puzzle = read_puzzle(args.log, args.puzzle, folder)
        args.log = puzzle.log
    rep = replay.load(args.log, parse_set(args.sets), args.params)
    if puzzle is not None:
        rep.puzzle = (puzzle.heading, *([f"solution: {puzzle.solution}"] if args.solution else []))
        rep.answer = (puzzle.state, puzzle.solution) if args.solution else None
        for line in rep.puzzle:
            print(printable(line))
    if args.review is not None:
        from stratstone_cad.viewer.review_strip import load_review

        if not args.review:  # made now: said before the wait
            from stratstone_cad.analysis.review import budget_line, budget_of

            print(printable(budget_line(budget_of(args.log))), flush=True)
        rep.review = load_review(args.log, Path(args.review) if args.review else None)
    return rep


def cmd_replay(args: argparse.Namespace) -> int:
    """replay: render a game log (or a puzzle) as a picture, a GIF, an MP4, frames or a page.

    Raises:
        UserError: --frames-per-ply, --fps or --hold is out of range, or --ply, --solution, --hold or --plies comes
            without the output or puzzle it needs.
    """
    # start-up speed: the parameters only for the commands that read them, not check-log or play
    from stratstone_cad.base.fileio import refuse_reading
    from stratstone_cad.viewer import replay

    size = size_arg(args.size)
    if not 1 <= args.frames_per_ply <= 600 or not 1 <= args.fps <= 120:
        raise UserError(f"--frames-per-ply {args.frames_per_ply} --fps {args.fps}: expected 1 to 600 frames a ply at 1 to "
                        "120 frames a second")
    kind = replay.check_out(args.out, size) if args.out else None
    if args.out:
        refuse_reading(args.out, [("log", args.log), ("--params file", args.params)])
    if args.ply is not None and kind != ".png":
        raise UserError(f"--ply {args.ply}: only with --out FILE.png (one position)")
    plies = None
    if args.plies is not None:
        m = re.fullmatch(r"([0-9]{1,7})-([0-9]{1,7})", args.plies.strip())
        if not m or kind in (None, ".png", *replay.SHARED):
            raise UserError(f"--plies {short_repr(args.plies)}: expected FIRST-LAST such as 10-20, with --out "
                            "FILE.gif, FILE.mp4 or a folder")
        plies = (int(m[1]), int(m[2]))
    if args.solution and args.puzzle is None:
        raise UserError("--solution: only with --puzzle N (the answer of a puzzle)")
    folder = tempfile.TemporaryDirectory(prefix="stratstone-puzzle-")  # removed when the command ends
    rep = _load(args, Path(folder.name))
    if kind in replay.SHARED:  # the scene itself, animated: the same motion as the MP4
        from stratstone_cad.viewer import gltf, web

        write = gltf.write_replay if kind == ".glb" else web.write_replay
        size_b = write(rep, args.log, args.out, args.frames_per_ply / args.fps, args.colours, reach=args.reach is not False)
        print(printable(f"wrote {args.out}: {rep.game}, {counted(rep.count, 'ply', 'plies')}, "
                        f"{size_b / 1e6:.1f} MB, {args.frames_per_ply / args.fps:g} s a ply"))
        return 0
    if not args.out:
        replay.show_window(rep, args.frames_per_ply, args.fps, args.colours, reach=args.reach is not False)
        return 0
    hold = replay.HOLD_S if args.hold is None else args.hold
    if args.hold is not None and (kind not in (".gif", ".mp4") or not 0 <= args.hold <= 60):
        raise UserError(f"--hold {short_repr(args.hold)}: expected 0 to 60 seconds, with --out FILE.gif or FILE.mp4")
    n = replay.export(rep, args.out, size=size, fps=args.fps, per_ply=args.frames_per_ply, ply=args.ply, plies=plies,
                      colours=args.colours, reach=bool(args.reach), hold_s=hold)
    what = f"the position after ply {rep.count if args.ply is None else args.ply}" if kind == ".png" else counted(n, "frame")
    print(printable(f"wrote {args.out}: {rep.game}, {counted(rep.count, 'ply', 'plies')}, {what}"))
    return 0

