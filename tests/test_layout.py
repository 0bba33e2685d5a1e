"""The test tree keeps its rooms: test modules sit where the package's rooms are, and what two test
modules share lives in a helper module or a fixture, never in one of them (importing a test module
from another collects its tests twice and ties the two modules' moves together)."""
from __future__ import annotations

import ast
from pathlib import Path

TESTS = Path(__file__).resolve().parent
CORE = TESTS.parent / "rat_tui" / "core"


def is_test_module(dotted: str) -> bool:
    return dotted.rpartition(".")[2].startswith("test_")


def imported_test_modules(path: Path) -> list[str]:
    """Every test module `path` imports, at any depth (imports inside functions count too)."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found += [alias.name for alias in node.names if is_test_module(alias.name)]
        elif isinstance(node, ast.ImportFrom):
            module = "." * node.level + (node.module or "")
            if is_test_module(module):
                found.append(module)
            found += [f"{module}.{alias.name}" for alias in node.names if is_test_module(alias.name)]
    return found


def test_no_module_of_the_test_tree_imports_a_test_module():
    offenders = {path.relative_to(TESTS).as_posix(): names
                 for path in sorted(TESTS.rglob("*.py")) if (names := imported_test_modules(path))}
    assert offenders == {}


def test_test_modules_sit_in_the_rooms_of_the_package():
    rooms = {".", "tui", "script"} | {f"core/{room.name}" for room in CORE.iterdir() if (room / "__init__.py").exists()}
    misplaced = [path.relative_to(TESTS).as_posix() for path in sorted(TESTS.rglob("test_*.py"))
                 if path.parent.relative_to(TESTS).as_posix() not in rooms]
    assert misplaced == []
