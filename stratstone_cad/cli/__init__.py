"""The ``stratstone-cad`` command line: parses arguments, calls the layers, prints
errors as one line (exit code 2). Heavy layers are imported by the command that uses
them, so ``--help`` and a cached rebuild start fast.

Each command is a pair, ``add_<command>`` (its arguments) beside ``cmd_<command>`` (what
it does), in the module of its kind: :mod:`.building` (build, list), :mod:`.logs` (play,
record, check-log), :mod:`.views` (preview, replay); :mod:`.args` holds what their
arguments share. This module assembles the parser and runs a command: its streams
guarded, its stop signals handled (:func:`stratstone_cad.base.processes.stop_signals`),
its errors said in one line.
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
from typing import Any

from stratstone_cad import __version__
from stratstone_cad.base.processes import stop_signals
from stratstone_cad.cli import analysis, building, kit, logs, studio, views
from stratstone_cad.cli.args import PROG
from stratstone_cad.errors import BuildError, OutputError, Terminated, UserError, listed, printable
from stratstone_cad.registry import FACTS

#: Every command's ``add_<command>``, in the order ``--help`` lists them.
COMMANDS = (building.add_build, building.add_list, logs.add_play, logs.add_record, views.add_preview, views.add_replay,
            logs.add_check_log, analysis.add_puzzles, kit.add_kit, studio.add_studio)


class _Parser(argparse.ArgumentParser):
    """argparse with a one-line error (no usage dump) and exit code 2."""

    def error(self, message: str) -> None:  # type: ignore[override]
        self.exit(2, f"{self.prog}: error: {error_line(message)} (see {self.prog} --help)\n")


def parser() -> argparse.ArgumentParser:
    """The command line's parser: every command of :data:`COMMANDS`."""
    p = _Parser(prog=PROG, description=f"Printable assets, rules engines and replays for "
                                       f"{listed([f.TITLE for f in FACTS.values()], 'and')}.")
    p.add_argument("--version", action="version", version=f"{PROG} {__version__}")
    sub = p.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    sub.required = True
    for add in COMMANDS:
        add(sub)
    return p


VALUE_FLAGS = ("--size",)
"""Flags whose value may start with '-' (``--size -64x64``): argparse would take the value
for a flag and say "expected one argument"; given to the flag, it gets the flag's message."""


def _values_with_a_dash(argv: list[str]) -> list[str]:
    """``argv`` with ``--size -64x64`` joined as ``--size=-64x64`` (a value that looks like
    a short flag; a long flag after ``--size`` is left alone, as is everything after ``--``)."""
    out: list[str] = []
    args = iter(argv)
    for arg in args:
        if arg == "--":
            return [*out, arg, *args]
        value = next(args, None) if arg in VALUE_FLAGS else None
        if value is None:
            out.append(arg)
        elif value.startswith("-") and not value.startswith("--") and value != "-":
            out.append(f"{arg}={value}")
        else:
            out += [arg, value]
    return out


#: The exit code when standard output or error is a pipe its reader closed (``| head -1``):
#: what a shell reports for a process that SIGPIPE stopped (128 + 13), said nowhere.
CLOSED_PIPE_EXIT = 128 + signal.SIGPIPE


class _StreamClosed(Exception):
    """Standard output or error went away (its pipe's reader closed, or it is the stream
    an error would be told on): the command stops quietly with ``code``."""

    def __init__(self, code: int) -> None:
        super().__init__(code)
        self.code = code


class _Guarded:
    """``sys.stdout`` or ``sys.stderr`` while a command runs: a write that fails becomes
    one line instead of a traceback. Standard output that cannot take the output (``>
    /dev/full``, a full disk, an I/O error) is an OutputError (exit 2, said on standard
    error); a closed pipe on either stream, or standard error failing, is
    :class:`_StreamClosed` (there is nowhere to say it). Either way the stream's file is
    then pointed at /dev/null, so the interpreter's last flush of what is left in its
    buffer cannot fail again (and print "Exception ignored") at exit."""

    def __init__(self, stream: Any, name: str) -> None:
        self._stream = stream
        self._name = name

    def write(self, text: str) -> int:
        return self._guard(self._stream.write, text)

    def flush(self) -> None:
        self._guard(self._stream.flush)

    def __getattr__(self, attr: str) -> Any:  # isatty, fileno, encoding, ...: the stream's own
        return getattr(self._stream, attr)

    def _guard(self, call: Any, *args: Any) -> Any:
        try:
            return call(*args)
        except OSError as e:
            _to_devnull(self._stream)
            if isinstance(e, BrokenPipeError):
                raise _StreamClosed(CLOSED_PIPE_EXIT) from None
            if self._name != "standard output":
                raise _StreamClosed(2) from None
            # start-up speed: the file helpers only when they are needed
            from stratstone_cad.base.fileio import describe_os_error
            from stratstone_cad.errors import OutputError

            raise OutputError(f"{self._name}: cannot write ({describe_os_error(e)}), expected a terminal, a pipe "
                              "or a file with room for the output") from None


def _to_devnull(stream: Any) -> None:
    """Point ``stream``'s file descriptor at /dev/null (a stream without one is left)."""
    try:
        fd = stream.fileno()
    except (AttributeError, OSError, ValueError):
        return
    null = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(null, fd)
    finally:
        os.close(null)


def main(argv: list[str] | None = None) -> int:
    """Run the command line; returns the exit code: 0, 2 for a user's error (one line on
    standard error), 1 for a build that failed for another reason, 130 and 143 when
    interrupted or terminated, :data:`CLOSED_PIPE_EXIT` when the output's pipe closed."""
    for stream in (sys.stdout, sys.stderr):  # a terminal in Latin-1 or ASCII gets \u escapes, not a traceback
        if hasattr(stream, "reconfigure"):
            stream.reconfigure(errors="backslashreplace")
    out, err = sys.stdout, sys.stderr
    if out is not None:  # None: started with standard output closed (print() then writes nothing)
        sys.stdout = _Guarded(out, "standard output")  # type: ignore[assignment]
    if err is not None:
        sys.stderr = _Guarded(err, "standard error")  # type: ignore[assignment]
    try:
        try:
            return _main(argv)
        except OutputError as e:  # standard output failed: said on standard error
            print(f"{PROG}: error: {error_line(str(e))}", file=sys.stderr)
            return 2
    except _StreamClosed as e:
        return e.code
    finally:
        sys.stdout, sys.stderr = out, err


def _main(argv: list[str] | None) -> int:
    try:
        args = parser().parse_args(_values_with_a_dash(sys.argv[1:] if argv is None else argv))
    except SystemExit:  # --help, --version, a usage error: what argparse printed must reach its reader
        if sys.stdout is not None:
            sys.stdout.flush()
        raise
    try:
        with stop_signals():
            code = args.run(args)
            if sys.stdout is not None:
                sys.stdout.flush()  # a full disk or a closed pipe is found here, not in the interpreter's exit
            return code
    except UserError as e:
        print(f"{PROG}: error: {error_line(str(e))}", file=sys.stderr)
        return 2
    except BuildError as e:
        print(f"{PROG}: error: {error_line(str(e))}", file=sys.stderr)
        return 1
    except Terminated:
        print(f"{PROG}: terminated", file=sys.stderr)
        return 143
    except KeyboardInterrupt:
        print(f"{PROG}: interrupted", file=sys.stderr)
        return 130


MESSAGE_CHARS = 1000
"""The longest error message shown whole; a longer one (it quotes too much of some input)
keeps its start and its end, which say what was wrong and what was expected."""


def error_line(text: str) -> str:
    """An error message for the terminal: :func:`printable`, and cut to about
    :data:`MESSAGE_CHARS` characters so no input can flood the screen."""
    text = printable(text)
    if len(text) <= MESSAGE_CHARS:
        return text
    head, tail = MESSAGE_CHARS * 6 // 10, MESSAGE_CHARS * 3 // 10
    return f"{text[:head]} ... ({len(text) - head - tail} characters left out) ... {text[-tail:]}"


def entry() -> None:
    sys.exit(main())


if __name__ == "__main__":
    entry()
