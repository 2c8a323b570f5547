"""The layers are a contract: import-linter checks the imports against pyproject.toml's
[tool.importlinter] (docs/architecture.md), and every game folder is registered once."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import stratstone_cad
from stratstone_cad import registry

ROOT = Path(__file__).resolve().parents[1]


def test_the_import_contracts_hold():
    lint = Path(sys.executable).with_name("lint-imports")
    done = subprocess.run([str(lint), "--config", str(ROOT / "pyproject.toml"), "--no-cache"], cwd=ROOT,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    assert "0 broken" in done.stdout


def test_every_game_folder_is_registered_and_each_once():
    games = Path(stratstone_cad.__file__).parent / "games"
    folders = sorted(p.name for p in games.iterdir() if (p / "__init__.py").is_file())
    assert sorted(registry.FOLDERS) == folders
    assert len(set(registry.FOLDERS)) == len(registry.FOLDERS)
    for folder in folders:
        for needed in ("facts.py", "rules.py", "parts.py", "cad.py", "preset.toml"):
            assert (games / folder / needed).is_file(), (folder, needed)


def test_the_package_root_holds_only_the_cli_the_errors_the_registry_and_the_model_api():
    """``stratstone_cad.models`` is the public API CadQuery users import (``models.part``),
    so it stands at the root, named as they type it."""
    root = Path(stratstone_cad.__file__).parent
    modules = sorted(p.name for p in root.glob("*.py"))
    assert modules == ["__init__.py", "__main__.py", "errors.py", "models.py", "registry.py"]
    assert (root / "cli" / "__init__.py").is_file()  # the command line, a package of its commands
    assert (root / "assets" / "__init__.py").is_file()  # what a game declares, a package by concept


def test_each_module_and_package_at_the_root_is_a_layer_of_the_contract():
    """A module or package added at the root is placed in the layers (or the contract
    names one that is gone)."""
    root = Path(stratstone_cad.__file__).parent
    found = {p.stem for p in root.glob("*.py") if p.stem not in ("__init__", "__main__")}
    found |= {p.parent.name for p in root.glob("*/__init__.py")}
    layered = {name.removeprefix("stratstone_cad.") for level in _contract_layers() for name in level.split(" | ")}
    assert found == layered


def _layers_contract() -> dict:
    """pyproject.toml's one import-linter contract of type ``layers``."""
    import tomllib

    contracts = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["importlinter"]["contracts"]
    (layers,) = [c for c in contracts if c["type"] == "layers"]
    return layers


def _contract_layers() -> list[str]:
    """The ``layers`` contract's levels, top first, as written in pyproject.toml."""
    return _layers_contract()["layers"]


def _documented_layers(text: str) -> list[str]:
    """The layers docs/architecture.md lists: the first fenced block under its ``## Layers``
    heading, one level a line, the layer's name before the gap (``pipeline | log      the build ...``)."""
    import re

    section = text.split("\n## Layers\n", 1)[1].split("\n## ", 1)[0]
    block = re.search(r"^```[a-z]*\n(.*?)^```", section, re.MULTILINE | re.DOTALL)
    assert block, "docs/architecture.md: no fenced list of the layers under '## Layers'"
    return [re.split(r"\s{2,}", line.strip())[0] for line in block.group(1).splitlines() if line.strip()]


def test_the_documented_layers_are_the_contract_s_in_its_order():
    """docs/architecture.md's list of layers is the import-linter contract's ``layers``, in the
    same order, with the same layers side by side; and the contract's name says the same."""
    contract = [" | ".join(n.removeprefix("stratstone_cad.") for n in level.split(" | ")) for level in _contract_layers()]
    documented = _documented_layers((ROOT / "docs" / "architecture.md").read_text(encoding="utf-8"))
    assert documented == contract
    assert _layers_contract()["name"] == "layers: " + " > ".join(contract)


def test_a_cad_function_the_game_does_not_define_is_refused_at_registration():
    import pytest

    from stratstone_cad.assets.makers import CadFunctions

    cad = CadFunctions("stratstone_cad.games.stratstone.cad", ("make_board", "make_boards"))
    with pytest.raises(LookupError, match=r"no function make_boards\(\) at its top level"):
        cad.check()
    with pytest.raises(AttributeError, match="declares no CAD function 'make_tile'"):
        _ = cad.make_tile
    for g in registry.ASSETS.values():  # and the real ones are there, callable
        import importlib

        module = importlib.import_module(g.cad.module)
        assert all(callable(getattr(module, n)) for n in g.cad.names)


#: A sleep in a test: the time module's, asyncio's, or a Playwright page's wait_for_timeout (in ms).
_SLEEP = re.compile(r"\b(?:time\.sleep|asyncio\.sleep|wait_for_timeout)\b")
_SECONDS = re.compile(r"\b(sleep|wait_for_timeout)\(\s*([0-9][0-9_]*(?:\.[0-9]*)?|\.[0-9]+)\s*[,)]")
_SAID = re.compile(r"#\s*(poll|not a wait):\s*\S")
#: The longest a poll sleeps between two looks at what it waits for.
POLL_UNDER_S = 0.3


def sleeps_that_wait(text: str) -> list[tuple[int, str]]:
    """The lines of a test module (number, why refused) that sleep as a wait: a test waits on
    an event, or polls a condition with a deadline (``# poll: <what>``, under
    :data:`POLL_UNDER_S` a look); a sleep that is no wait (work simulated, a pause inside a
    callback, a while in which nothing may happen) says so: ``# not a wait: <why>``."""
    refused = []
    for n, line in enumerate(text.splitlines(), 1):
        if not _SLEEP.search(line):
            continue
        said, seconds = _SAID.search(line), _SECONDS.search(line)
        if said is None:
            refused.append((n, "a sleep as a wait: wait on an event, or say '# poll: <what>' or '# not a wait: <why>'"))
        elif said[1] == "poll" and seconds is None:
            refused.append((n, "a poll whose interval is not a number written here"))
        elif said[1] == "poll" and float(seconds[2]) / (1000 if seconds[1] == "wait_for_timeout" else 1) >= POLL_UNDER_S:
            refused.append((n, f"a poll of {seconds[2]} ({seconds[1]}): a fixed wait of {POLL_UNDER_S} s or more"))
    return refused


def test_no_test_waits_by_sleeping():
    found = {p.relative_to(ROOT).as_posix(): sleeps_that_wait(p.read_text(encoding="utf-8"))
             for p in sorted((ROOT / "tests").rglob("*.py")) if p != Path(__file__).resolve()}  # here: the calls named, not made
    assert {f: r for f, r in found.items() if r} == {}


def test_a_sleep_that_waits_is_found():
    sleep = "time.sleep"
    assert sleeps_that_wait(f"x = 1\n    {sleep}(1.5)\n") == [(2, sleeps_that_wait(f"{sleep}(1)")[0][1])]
    assert [n for n, _ in sleeps_that_wait(f"{sleep}(0.3)  # poll: the file\n{sleep}(0.05)  # poll: the file\n")] == [1]
    assert [n for n, _ in sleeps_that_wait("page.wait_for_timeout(500)  # poll: a frame\n")] == [1]
    assert sleeps_that_wait(f"{sleep}(0.6)  # not a wait: a while in which nothing may be drawn\n") == []
    assert [n for n, _ in sleeps_that_wait("await asyncio.sleep(0.05)\n")] == [1]


def _module_level_imports(name: str, path: Path, modules: set[str]) -> set[str]:
    """The package's modules that module ``name`` (at ``path``) imports at module level."""
    import ast

    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()

    def walk(body: list[ast.stmt]) -> None:
        for node in body:
            if isinstance(node, ast.Import):
                found.update(a.name for a in node.names)
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:  # a relative import: from the package, up level - 1 packages
                    up = package.split(".")[:len(package.split(".")) - node.level + 1]
                    base = ".".join([*up, *([node.module] if node.module else [])])
                found.add(base)
                found.update(f"{base}.{a.name}" for a in node.names)  # from a package import a module
            elif isinstance(node, ast.If | ast.Try):  # `if TYPE_CHECKING:`, `try: import x` at module level
                walk(node.body)
                walk(node.orelse)
                for handler in getattr(node, "handlers", []):
                    walk(handler.body)
                walk(getattr(node, "finalbody", []))

    walk(ast.parse(path.read_text(encoding="utf-8")).body)
    return (found & modules) - {name}


def _package_modules() -> dict[str, Path]:
    root = Path(stratstone_cad.__file__).parent
    out = {}
    for path in root.rglob("*.py"):
        parts = path.relative_to(root.parent).with_suffix("").parts
        out[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return out


def test_no_two_modules_import_each_other():
    """No module of the package imports, at module level, a module that imports it back.

    Module level includes the imports under ``if TYPE_CHECKING:`` (and in a top-level
    ``try``): a cycle for the type checker only is still two modules that each need the
    other to be read, and it becomes a real one the day an annotation is evaluated (a
    dataclass field, ``typing.get_type_hints``). Imports inside functions do not count:
    they run when called, after both modules are loaded, and the package keeps them for
    start-up speed (docs/architecture.md), never to dodge a cycle. A package's
    ``__init__`` counts as the package's module, so ``from pkg import sub`` of a
    submodule is an import of ``pkg.sub``."""
    modules = _package_modules()
    imports = {name: _module_level_imports(name, path, set(modules)) for name, path in modules.items()}
    pairs = sorted((a, b) for a, bs in imports.items() for b in bs if a < b and a in imports[b])
    assert not pairs, "modules that import each other: " + "; ".join(f"{a} <-> {b}" for a, b in pairs)


# ---- the size of things (issue 54's checks): a module is one job, a function one step

PACKAGE = Path(stratstone_cad.__file__).parent
MAX_MODULE_LINES = 600  # a game's rules.py excepted: one game's rules read best in one place
MAX_FUNCTION_LINES = 60


def _modules():
    return sorted(PACKAGE.rglob("*.py"))



def test_no_module_is_over_600_lines_but_a_games_rules():
    import re

    long = {str(p.relative_to(PACKAGE)): n for p in _modules()
            if (n := len(p.read_text(encoding="utf-8").splitlines())) > MAX_MODULE_LINES
            and not re.fullmatch(r"games/\w+/rules\.py", p.relative_to(PACKAGE).as_posix())}
    assert not long, long


def test_no_function_is_over_60_lines():
    """Every line counts, its docstring's included (a ``Raises:`` section as well)."""
    import ast

    long = [f"{p.relative_to(PACKAGE)}:{n.lineno} {n.name}() {n.end_lineno - n.lineno + 1} lines"
            for p in _modules() for n in ast.walk(ast.parse(p.read_text(encoding="utf-8")))
            if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef) and n.end_lineno - n.lineno + 1 > MAX_FUNCTION_LINES]
    assert not long, long


def test_every_exception_class_outside_the_games_is_in_errors_py():
    """One error family, side by side (as python-chess keeps its errors): a game's own errors
    stay in its folder (deriving from errors.py's); a private helper exception (a leading
    underscore, caught where it is raised) stays beside its one use."""
    import ast

    from stratstone_cad import errors

    family = {name for name, obj in vars(errors).items() if isinstance(obj, type) and issubclass(obj, BaseException)}
    strays = []
    for p in _modules():
        rel = p.relative_to(PACKAGE).as_posix()
        if rel == "errors.py" or rel.startswith("games/"):
            continue
        for node in ast.walk(ast.parse(p.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ClassDef) and not node.name.startswith("_"):
                bases = {b.id if isinstance(b, ast.Name) else getattr(b, "attr", "") for b in node.bases}
                if bases & (family | {"Exception", "BaseException", "ValueError", "KeyboardInterrupt", "RuntimeError",
                                      "LookupError", "OSError", "TypeError"}):
                    strays.append(f"{rel}: {node.name}")
    assert not strays, strays


def _error_family():
    """errors.py's exception classes and the games' own ones deriving from them (by name)."""
    import ast

    from stratstone_cad import errors

    family = {name for name, obj in vars(errors).items()
              if isinstance(obj, type) and issubclass(obj, BaseException) and obj.__module__ == errors.__name__}
    games = [ast.parse(p.read_text(encoding="utf-8")) for p in sorted((PACKAGE / "games").rglob("*.py"))]
    grown = True
    while grown:
        grown = False
        for tree in games:
            for node in ast.walk(tree):
                if isinstance(node, ast.ClassDef) and node.name not in family and any(
                        (b.id if isinstance(b, ast.Name) else getattr(b, "attr", "")) in family for b in node.bases):
                    family.add(node.name)
                    grown = True
    return family


def _raised_directly(function, family):
    """The family's classes a function's own body raises (``raise X(...)`` or ``raise X``), not its nested defs'."""
    import ast

    raised, todo = set(), list(function.body)
    while todo:
        node = todo.pop()
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef | ast.Lambda):
            continue
        if isinstance(node, ast.Raise) and node.exc is not None:
            exc = node.exc.func if isinstance(node.exc, ast.Call) else node.exc
            name = exc.id if isinstance(exc, ast.Name) else getattr(exc, "attr", "")
            if name in family:
                raised.add(name)
        todo.extend(ast.iter_child_nodes(node))
    return raised


def _public_functions(tree):
    import ast

    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and not node.name.startswith("_"):
            yield node.name, node
        elif isinstance(node, ast.ClassDef) and not node.name.startswith("_"):
            for item in node.body:
                if isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef) and not item.name.startswith("_"):
                    yield f"{node.name}.{item.name}", item


def test_public_functions_that_raise_the_error_family_say_so_under_raises():
    """A public function (or a public class's public method) whose body raises one of
    errors.py's classes (or a game's own, deriving from them) names each under a Google-style
    ``Raises:`` section of its docstring (``ClassName: when ...``), as build123d's do."""
    import ast
    import re

    family = _error_family()
    missing, checked = [], 0
    for p in _modules():
        rel = p.relative_to(PACKAGE).as_posix()
        for name, node in _public_functions(ast.parse(p.read_text(encoding="utf-8"))):
            raised = _raised_directly(node, family)
            if not raised:
                continue
            checked += 1
            doc = ast.get_docstring(node) or ""
            section = re.search(r"^Raises:\n((?:[ \t]+\S.*\n?|\n)+)", doc, re.M)
            named = set(re.findall(r"^[ \t]+(\w+):", section.group(1), re.M)) if section else set()
            if raised - named:
                missing.append(f"{rel}:{node.lineno} {name}() lacks {sorted(raised - named)}")
    assert checked > 50, checked
    assert not missing, f"{len(missing)} of {checked}:\n" + "\n".join(missing)
