"""What the build's worker processes and their fork server run when they start.

The fork server (:mod:`stratstone_cad.pipeline.forkserver_start`, its first preloaded module)
asks the kernel to kill it the moment the build that started it goes (SIGKILL included),
and every worker asks the same of the server (:func:`worker_init`), so no process of a
killed build lives on to write into its folder.

The server also imports CadQuery without VTK and ezdxf (:func:`import_cadquery_without_vtk`):
the workers start only once that import is done, so it is on the critical path of every
parallel build.
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import signal
import sys
import types

from stratstone_cad.base.processes import die_with_parent, lower_thread_priority

PARENT_ENV = "STRATSTONE_CAD_BUILD_PID"


def worker_init(nice: int = 0) -> None:
    """In each worker: die with the fork server (and so with the build); leave Ctrl-C and
    SIGTERM to the build, which stops itself and lets running parts finish; run at the
    ``nice`` value of the thread that made the pool (a worker is the fork server's child,
    which would not inherit it: the studio's background builds, :mod:`stratstone_cad.studio.set_builds`)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    die_with_parent()
    lower_thread_priority(nice)


#: Top-level packages ``import cadquery`` loads that no part's making uses: VTK, which
#: cadquery (its ``toVtkPolyData``, VTK exporters) and OCP's ``IVtkOCC`` wrapper import at
#: their own import, and ezdxf, which its DXF importer and exporter import. Measured on
#: the 2-core machine: ``import cadquery`` 2.2 s with both, 1.5 s without VTK; the
#: workers' preload 1.38 s without VTK, 1.23 s without ezdxf too (docs/benchmarks.md).
WITHOUT = ("vtk", "vtkmodules", "ezdxf")


class _StandIn(type):
    """The class of a stand-in: any attribute of it is a stand-in too (``units.MM`` as a
    default argument value at import), and making one says what is missing."""

    def __getattr__(cls, name: str) -> type:
        if name.startswith("__"):
            raise AttributeError(name)
        return _stand_in(cls.__module__, f"{cls.__qualname__}.{name}")


def _stand_in(module: str, name: str) -> type:
    def refuse(*_args: object, **_kwargs: object) -> None:
        raise RuntimeError(f"{module}.{name}: {module.partition('.')[0]} is not loaded in the build's worker "
                           "processes (stratstone_cad.pipeline.workers.WITHOUT)")

    return _StandIn(name.rpartition(".")[2], (), {"__init__": refuse, "__module__": module, "__qualname__": name})


class _Absent(types.ModuleType):
    """A stand-in for a module of :data:`WITHOUT`: any name imported from it is a class
    that says, when used, that the package is not loaded here (import-time uses such as
    type annotations, default argument values and ``from vtkmodules.x import y`` work;
    nothing builds with them)."""

    def __getattr__(self, name: str) -> type:
        if name.startswith("__"):
            raise AttributeError(name)
        stand_in = _stand_in(self.__name__, name)
        setattr(self, name, stand_in)
        return stand_in


class _AbsentFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Answers every import of a :data:`WITHOUT` package or its submodules with an
    :class:`_Absent` module."""

    def find_spec(self, fullname: str, path: object = None, target: object = None) -> importlib.machinery.ModuleSpec | None:
        if fullname.partition(".")[0] in WITHOUT:
            return importlib.machinery.ModuleSpec(fullname, self, is_package=True)
        return None

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> types.ModuleType:
        module = _Absent(spec.name)
        module.__path__ = []
        return module

    def exec_module(self, module: types.ModuleType) -> None:
        pass


def import_cadquery_without_vtk() -> bool:
    """Import CadQuery with the :data:`WITHOUT` packages stood in for, in a process that
    only makes parts (never in the build's own process: a preview there renders with the
    real VTK). Returns False, with CadQuery imported the ordinary way, if the lighter
    import fails (a CadQuery release that uses VTK at import): slower, never wrong. The
    geometry does not depend on it: parts made here and in the build's own process are
    byte for byte the same (tests/test_build.py)."""
    if "cadquery" in sys.modules or any(m.partition(".")[0] in WITHOUT for m in sys.modules):
        return False
    finder = _AbsentFinder()
    sys.meta_path.insert(0, finder)
    try:
        import cadquery  # the warm-up import this function exists to make, with the stand-ins in place
        return True
    except Exception:
        sys.meta_path.remove(finder)
        # Forget what was imported with the stand-ins: the VTK packages, CadQuery, and
        # OCP's VTK wrappers (OCP.IVtk*: they import vtk). OCP's compiled core stays.
        for name in [m for m in sys.modules if m.partition(".")[0] in (*WITHOUT, "cadquery")
                     or m.startswith("OCP.IVtk")]:
            del sys.modules[name]
        import cadquery  # noqa: F401
        return False
