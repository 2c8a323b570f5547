"""The first module the build's fork server imports (its preload: see
:func:`stratstone_cad.pipeline.scheduler.start_fork_server`), and only the server: importing it is
what the server does when it starts, so nothing else imports it.

The build names itself in :data:`~stratstone_cad.pipeline.workers.PARENT_ENV` just for the server.
The server asks the kernel to kill it the moment that build goes (SIGKILL included), then
imports CadQuery without VTK and ezdxf for the workers it will fork. A server whose build
is already gone (a build that refused its input ends in a fraction of a second, before
its server gets here) exits at once instead of loading CadQuery for nobody, holding the
build's standard output and error open meanwhile.
"""

from __future__ import annotations

import os

from stratstone_cad.base.processes import die_with_parent
from stratstone_cad.pipeline.workers import PARENT_ENV, import_cadquery_without_vtk

_BUILD = os.environ.pop(PARENT_ENV, None)
if _BUILD is not None:
    if _BUILD != str(os.getppid()):  # the build ended before this: the kernel gave the server a new parent
        os._exit(0)
    die_with_parent(int(_BUILD))
    import_cadquery_without_vtk()  # the warm-up: CadQuery once, here, before the workers fork (docs/architecture.md)
