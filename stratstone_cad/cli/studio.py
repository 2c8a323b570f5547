"""The studio command: a local web app to customize a set (:mod:`stratstone_cad.studio`)."""

from __future__ import annotations

import argparse
from typing import Any

from stratstone_cad.cli.args import integer, path_arg
from stratstone_cad.errors import UserError, listed
from stratstone_cad.registry import FACTS


def add_studio(sub: Any) -> None:
    st = sub.add_parser("studio", help="customize a set in the browser: controls for every parameter, a live 3D "
                                       "preview, downloads of exactly what the build writes",
                        description="Start the studio, a local web app: each parameter of a game as a control, the "
                                    "part's 3D preview redrawn as you change them, its size, volume and grams of PLA, "
                                    "and downloads (STL, STEP, the plate's 3MF, the whole set as a zip with a "
                                    "params.toml for build --params). Ctrl-C stops it.")
    st.add_argument("game", nargs="?", metavar="GAME", help=f"the game shown first: {listed(list(FACTS), 'or')}")
    st.add_argument("--host", default="127.0.0.1", type=host_arg,
                    help="address to listen on (default 127.0.0.1: this computer only; another lets anyone on the "
                         "network use it)")
    st.add_argument("--port", metavar="N", type=integer, default=8040, help="port (default 8040; 0: any free port)")
    st.add_argument("--no-browser", action="store_true", help="do not open the page in the default browser")
    st.add_argument("--out", metavar="DIR", type=path_arg, default=None,
                    help="the studio's folder: the parts and sets it builds (default: a folder of the user's cache); "
                         "it reads and writes no file outside it")
    st.add_argument("--printer", metavar="NAME", help="the printer chosen first (see 'list')")
    st.add_argument("--max-cache-mb", metavar="N", type=integer, default=2000,
                    help="the most the parts and sets it builds in its folder may take, in MB (default 2000): the "
                         "least recently used are dropped first (made again when asked for)")
    st.add_argument("--puzzles", metavar="FILE", type=path_arg, nargs="+", action="extend", default=[],
                    help="puzzle files ('puzzles' writes them) the Training page offers after the package's own")
    st.set_defaults(run=cmd_studio)


def host_arg(text: str) -> str:
    """An address to listen on; an empty one is an error (it would quietly mean every interface)."""
    if not text.strip():
        raise argparse.ArgumentTypeError(f"expected an address to listen on (such as 127.0.0.1), got {text!r}")
    return text


def cmd_studio(args: argparse.Namespace) -> int:
    """studio: serve the studio web app until it is stopped.

    Raises:
        UserError: the port is not from 0 to 65535.
    """
    from stratstone_cad.pipeline.build import usable_cores
    from stratstone_cad.studio.server import serve

    if not 0 <= args.port <= 65535:
        raise UserError(f"--port {args.port}: expected a port from 0 to 65535 (0: any free port)")
    if args.max_cache_mb < 1:
        raise UserError(f"--max-cache-mb {args.max_cache_mb}: expected a size in MB of at least 1 (default 2000)")
    if args.puzzles:
        from stratstone_cad.studio.training import check_files

        check_files(args.puzzles)
    return serve(args.game, args.host, args.port, not args.no_browser, args.out, args.printer, max(1, usable_cores()),
                 args.max_cache_mb, tuple(args.puzzles))
