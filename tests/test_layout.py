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


PACKAGE = TESTS.parent / "rat_tui"
# The run's rooms: a run's steps hand back values and the run (core/run/phases.py) assembles its record.
RUN_ROOMS = (CORE / "run", CORE / "unittests")


def any_aliases(path: Path) -> list[str]:
    """Module-level `Name = Any` (or `Name: TypeAlias = Any`): a name that stands for a type and checks nothing."""
    found = []
    for node in ast.parse(path.read_text(), str(path)).body:
        target, value = ((node.targets[0], node.value) if isinstance(node, ast.Assign) and len(node.targets) == 1
                         else (node.target, node.value) if isinstance(node, ast.AnnAssign) else (None, None))
        is_any = (isinstance(value, ast.Name) and value.id == "Any") or (
            isinstance(value, ast.Attribute) and value.attr == "Any")
        if isinstance(target, ast.Name) and is_any:
            found.append(f"{target.id} (line {node.lineno})")
    return found


def foreign_attribute_writes(path: Path) -> list[str]:
    """`param.attr = …` in a function, where the parameter's type is not a class of this module: one module
    setting the state of another's object (`self` and `cls` are the function's own)."""
    tree = ast.parse(path.read_text(), str(path))
    own_classes = {node.name for node in ast.walk(tree) if isinstance(node, ast.ClassDef)}
    found = []
    for function in ast.walk(tree):
        if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        arguments = [*function.args.posonlyargs, *function.args.args, *function.args.kwonlyargs]
        foreign = {a.arg for a in arguments if a.arg not in ("self", "cls")
                   and not (a.annotation is not None and ast.unparse(a.annotation).strip("'\"") in own_classes)}
        for node in ast.walk(function):
            targets = (node.targets if isinstance(node, ast.Assign)
                       else [node.target] if isinstance(node, (ast.AugAssign, ast.AnnAssign)) else [])
            for target in targets:
                for element in (target.elts if isinstance(target, ast.Tuple) else [target]):
                    if (isinstance(element, ast.Attribute) and isinstance(element.value, ast.Name)
                            and element.value.id in foreign):
                        found.append(f"{element.value.id}.{element.attr} (line {element.lineno})")
    return found


def test_no_name_stands_for_a_type_as_any():
    offenders = {path.relative_to(PACKAGE).as_posix(): names
                 for path in sorted(PACKAGE.rglob("*.py")) if (names := any_aliases(path))}
    assert offenders == {}


def test_a_run_step_returns_what_it_made_instead_of_setting_the_run():
    offenders = {path.relative_to(PACKAGE).as_posix(): writes
                 for room in RUN_ROOMS for path in sorted(room.rglob("*.py"))
                 if (writes := foreign_attribute_writes(path))}
    assert offenders == {}


# The services the faces call (issue 37): each a class of its own, built by the composition root from the
# collaborators its constructor names, never a mixin of one Workbench nor handed the Workbench itself.
SERVICE_ROOMS = (CORE / "commands", CORE / "background")
COMPOSE = CORE / "compose.py"


def command_classes() -> set[str]:
    return {node.name for path in (CORE / "commands").glob("*.py")
            for node in ast.walk(ast.parse(path.read_text(), str(path))) if isinstance(node, ast.ClassDef)}


def mixed_in(path: Path, commands: set[str]) -> list[str]:
    """Classes of `path` that derive from a class of the command layer (a mixin of its commands)."""
    return [f"{node.name}({', '.join(ast.unparse(b) for b in node.bases)})"
            for node in ast.walk(ast.parse(path.read_text(), str(path))) if isinstance(node, ast.ClassDef)
            and any(ast.unparse(b).rpartition(".")[2] in commands for b in node.bases)]


def borrowed_methods(path: Path) -> list[str]:
    """Methods a class declares it has without defining them (`run: Callable[...]` in the class body): a
    call to a sibling that the import contracts cannot see."""
    return [f"{node.name}.{item.target.id}" for node in ast.walk(ast.parse(path.read_text(), str(path)))
            if isinstance(node, ast.ClassDef) for item in node.body
            if isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name)
            and "Callable" in ast.unparse(item.annotation)]


def takes_the_workbench(path: Path) -> list[str]:
    """Constructors with a parameter that is the whole Workbench (typed so, or named `wb`/`workbench`)."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.ClassDef):
            for item in node.body:
                if isinstance(item, ast.FunctionDef) and item.name == "__init__":
                    found += [f"{node.name}({a.arg})" for a in item.args.args[1:]
                              if a.arg in ("wb", "workbench") or (a.annotation is not None and any(
                                  word in ast.unparse(a.annotation) for word in ("Workbench", "Commands")))]
    return found


def test_no_service_is_a_mixin_of_another():
    commands = command_classes()
    offenders = {path.relative_to(PACKAGE).as_posix(): classes
                 for room in (*SERVICE_ROOMS, COMPOSE) for path in sorted([room] if room.is_file() else room.glob("*.py"))
                 if (classes := mixed_in(path, commands))}
    assert offenders == {}


def test_no_service_declares_the_methods_of_another():
    offenders = {path.relative_to(PACKAGE).as_posix(): names
                 for room in SERVICE_ROOMS for path in sorted(room.glob("*.py")) if (names := borrowed_methods(path))}
    assert offenders == {}


def test_each_service_takes_its_collaborators_not_the_workbench():
    offenders = {path.relative_to(PACKAGE).as_posix(): names
                 for room in SERVICE_ROOMS for path in sorted(room.glob("*.py")) if (names := takes_the_workbench(path))}
    assert offenders == {}


def test_the_workbench_holds_services_and_runs_no_command_itself():
    tree = ast.parse(COMPOSE.read_text(), str(COMPOSE))
    workbench = next(node for node in tree.body if isinstance(node, ast.ClassDef) and node.name == "Workbench")
    public = sorted(item.name for item in workbench.body if isinstance(item, ast.FunctionDef)
                    and not item.name.startswith("_") and not any(ast.unparse(d) == "property" for d in item.decorator_list))
    assert (public, [ast.unparse(b) for b in workbench.bases]) == (["close", "warm_up"], [])
