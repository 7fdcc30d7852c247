"""The package's modules import, and no chain of imports inside scorekeeper comes back to where it
started: an import made inside a function to dodge a circle counts as much as one at the top."""

from __future__ import annotations

import ast
import graphlib
import importlib
from pathlib import Path

import pytest

import scorekeeper

PACKAGE = Path(scorekeeper.__file__).resolve().parent


def module_files(root: Path = PACKAGE) -> dict[str, Path]:
    """Every module of the package by dotted name (a package by its ``__init__.py``)."""
    out = {}
    for path in sorted(root.rglob("*.py")):
        parts = list(path.relative_to(root.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        out[".".join(parts)] = path
    return out


def _runtime_nodes(tree: ast.AST) -> list[ast.AST]:
    """Every node but those under ``if TYPE_CHECKING:`` (never run, so never part of a circle)."""
    found: list[ast.AST] = []
    pending = [tree]
    while pending:
        node = pending.pop()
        found.append(node)
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and "TYPE_CHECKING" in ast.unparse(child.test):
                pending.extend(child.orelse)
                continue
            pending.append(child)
    return found


def import_graph(modules: dict[str, Path]) -> dict[str, set[str]]:
    """Which package modules each module imports, wherever in the file the import is.

    ``from scorekeeper.x import y`` points at ``scorekeeper.x.y`` when that is a module, else at
    ``scorekeeper.x``. Importing a submodule also runs its parent packages' ``__init__``, but a
    package importing its own submodules is how packages are built, so that is not an edge."""

    def owner(name: str) -> str | None:
        while name and name not in modules:
            name = name.rpartition(".")[0]
        return name or None

    graph: dict[str, set[str]] = {name: set() for name in modules}
    for name, path in modules.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        for node in _runtime_nodes(ast.parse(path.read_text(encoding="utf-8"), str(path))):
            targets: list[str] = []
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    anchor = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
                    base = f"{anchor}.{base}" if base else anchor
                targets = [
                    f"{base}.{alias.name}" if f"{base}.{alias.name}" in modules else base
                    for alias in node.names
                ]
            for target in targets:
                found = owner(target) if target.split(".")[0] == PACKAGE.name else None
                if found is not None and found != name:
                    graph[name].add(found)
    return graph


def cycle_in(graph: dict[str, set[str]]) -> list[str] | None:
    try:
        tuple(graphlib.TopologicalSorter(graph).static_order())
    except graphlib.CycleError as error:
        return list(error.args[1])
    return None


def test_no_import_circle_in_the_package() -> None:
    cycle = cycle_in(import_graph(module_files()))
    assert cycle is None, "import circle: " + " -> ".join(cycle or [])


def test_a_circle_is_found_and_named(tmp_path: Path) -> None:
    root = tmp_path / PACKAGE.name
    (root / "vision").mkdir(parents=True)
    (root / "__init__.py").write_text("")
    (root / "vision" / "__init__.py").write_text("")
    (root / "vision" / "reader.py").write_text(f"from {PACKAGE.name}.vision.registry import find\n")
    (root / "vision" / "registry.py").write_text(
        f"def find():\n    from {PACKAGE.name}.vision import reader\n    return reader\n"
    )
    cycle = cycle_in(import_graph(module_files(root)))
    assert cycle is not None
    assert set(cycle) == {f"{PACKAGE.name}.vision.reader", f"{PACKAGE.name}.vision.registry"}


@pytest.mark.parametrize("name", sorted(n for n in module_files() if not n.endswith(".__main__")))
def test_every_module_imports(name: str) -> None:
    importlib.import_module(name)
