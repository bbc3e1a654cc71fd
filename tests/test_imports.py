"""The import structure of src/rlvitals: one way through the house (no import from a higher
layer), no import cycle between modules, no private name taken across modules.

Every `import` / `from … import` in the package is read with `ast`, those inside functions too
(a function-level import hides a cycle from Python but not from a reader); only imports under
`if TYPE_CHECKING:` are left out (they never run).  One module is one .py file; `from pkg import x`
points at pkg/x.py when x is a submodule, else at pkg/__init__.py.

The allow-lists below are the known exceptions, each with its reason.  They may only shrink:
a listed entry that no longer exists fails too, so whoever fixes one removes it here.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src"
PACKAGE = "rlvitals"

# Imports (importer -> imported) that close a cycle, allowed for now.  The graph without them must
# have no cycle, so a new cycle fails unless it runs through one of these very edges.
KNOWN_CYCLE_EDGES: dict[tuple[str, str], str] = {
    # lesson_case() calls the package's simulate(); simulate/__init__ and lesson.py are being changed
    # on the lab branch: split lesson.py's pins from its cases after that merge.
    ("rlvitals.simulate.lesson", "rlvitals.simulate"): "simulate/lesson.py: lesson_case",
}

# Cross-module imports of a `_` name: (importer, module, name).  None left.
KNOWN_PRIVATE_IMPORTS: set[tuple[str, str, str]] = set()


# One way through the house: a module imports from its own layer or lower ones only.  Data flows
# ingest -> run -> shapes -> diagnose -> render; simulate and watch use them, lab and the TRL
# integration use those, the CLI and the package's root sit on top.
LAYERS: dict[str, int] = {
    "rlvitals.errors": 0,
    "rlvitals.i18n": 0,
    "rlvitals.output": 0,
    "rlvitals._deprecated": 0,
    "rlvitals.run": 1,
    "rlvitals.stats": 1,  # robust per-curve statistics (numpy only), shared by shapes and diagnose
    "rlvitals.ingest": 2,
    "rlvitals.samples": 2,
    "rlvitals.shapes": 3,
    "rlvitals.diagnose": 4,
    "rlvitals.render": 5,
    "rlvitals.simulate": 6,
    "rlvitals.watch": 6,
    "rlvitals.lab": 7,
    "rlvitals.integrations": 7,
    "rlvitals.cli": 8,
    "rlvitals.__main__": 8,
    "rlvitals": 8,
    # modules other branches are adding (an entry for a module that does not exist is harmless)
    "rlvitals.safe_text": 0,
    # runs compared: diagnoses side by side (render/compare.py words them)
    "rlvitals.compare": 4,
}

# Imports from a higher layer, allowed for now (they may only shrink, like the lists below).
KNOWN_UPWARD: dict[tuple[str, str], str] = {
    # the report's footer names the version, which lives in the package root (one version source)
    ("rlvitals.render.html", "rlvitals"): "render/html.py: the footer's version",
}


def layer_of(module: str) -> int:
    """The layer of `module`: that of the longest LAYERS prefix it starts with."""
    parts = module.split(".")
    for n in range(len(parts), 0, -1):
        prefix = ".".join(parts[:n])
        if prefix in LAYERS:
            return LAYERS[prefix]
    raise KeyError(f"{module} has no layer: add its package to LAYERS in tests/test_imports.py")


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(SRC).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


MODULES: dict[str, Path] = {_module_name(p): p for p in sorted((SRC / PACKAGE).rglob("*.py"))}


def _type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _nodes(tree: ast.AST) -> Iterator[ast.AST]:
    """Every node, except the body of an `if TYPE_CHECKING:` (its `else:` is kept)."""
    stack = [tree]
    while stack:
        node = stack.pop()
        yield node
        if isinstance(node, ast.If) and _type_checking(node):
            stack.extend(node.orelse)
        else:
            stack.extend(ast.iter_child_nodes(node))


def _resolve(module: str, node: ast.ImportFrom) -> str | None:
    if not node.level:
        return node.module
    base = module.split(".") if MODULES[module].name == "__init__.py" else module.split(".")[:-1]
    base = base[: len(base) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def scan(module: str) -> tuple[dict[str, int], list[tuple[str, str, int]]]:
    """(imported module -> first line, [(module, `_` name, line)]) for one module of the package."""
    tree = ast.parse(MODULES[module].read_text(encoding="utf-8"))
    edges: dict[str, int] = {}
    private: list[tuple[str, str, int]] = []
    bound: dict[str, str] = {}  # local name -> package module it is bound to (for `mod._name`)
    nodes = list(_nodes(tree))
    for node in nodes:
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] == PACKAGE:
                    edges.setdefault(alias.name, node.lineno)
                    if alias.asname:
                        bound[alias.asname] = alias.name
        elif isinstance(node, ast.ImportFrom):
            target = _resolve(module, node)
            if target is None or target.split(".")[0] != PACKAGE:
                continue
            for alias in node.names:
                sub = f"{target}.{alias.name}"
                if sub in MODULES:
                    edges.setdefault(sub, node.lineno)
                    bound[alias.asname or alias.name] = sub
                    continue
                edges.setdefault(target, node.lineno)
                if alias.name.startswith("_") and not alias.name.startswith("__") and target != module:
                    private.append((target, alias.name, node.lineno))
    for node in nodes:
        if (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and node.value.id in bound
            and node.attr.startswith("_")
            and not node.attr.startswith("__")
            and bound[node.value.id] != module
        ):
            private.append((bound[node.value.id], node.attr, node.lineno))
    edges.pop(module, None)
    return edges, private


GRAPH: dict[str, dict[str, int]] = {}
PRIVATE: dict[tuple[str, str, str], int] = {}
for _m in MODULES:
    GRAPH[_m], _found = scan(_m)
    for _target, _name, _line in _found:
        PRIVATE.setdefault((_m, _target, _name), _line)


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out: list[list[str]] = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph.get(root, ()))))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            v, children = work[-1]
            for w in children:
                if w not in index:
                    index[w] = low[w] = len(index)
                    stack.append(w)
                    on_stack.add(w)
                    work.append((w, iter(sorted(graph.get(w, ())))))
                    break
                if w in on_stack:
                    low[v] = min(low[v], index[w])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[v])
                if low[v] == index[v]:
                    comp = []
                    while True:
                        w = stack.pop()
                        on_stack.discard(w)
                        comp.append(w)
                        if w == v:
                            break
                    if len(comp) > 1:
                        out.append(sorted(comp))
    return out


def _edges_without_known() -> dict[str, set[str]]:
    return {m: {t for t in targets if (m, t) not in KNOWN_CYCLE_EDGES} for m, targets in GRAPH.items()}


def test_the_walk_sees_the_package():
    """The walk reads every module, sees imports inside functions, and resolves relative ones."""
    assert len(MODULES) > 100 and "rlvitals.diagnose.model" in MODULES
    assert "rlvitals.run" in GRAPH["rlvitals.shapes"]  # from .run import ...
    assert "rlvitals.render.plot" in GRAPH["rlvitals"]  # inside plot()
    assert "rlvitals.diagnose" in GRAPH["rlvitals.watch.session"]  # inside default_diagnose()
    # imports under `if TYPE_CHECKING:` never run: rlvitals/__init__ names diagnose.model only there
    assert "rlvitals.diagnose.model" not in GRAPH["rlvitals"]


def test_cycle_finder_finds_cycles():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a", "d"}, "d": set(), "e": {"e"}}
    assert cycles(graph) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


def test_no_import_cycle():
    found = cycles(_edges_without_known())
    assert not found, "import cycle(s) between modules (break them; see KNOWN_CYCLE_EDGES):\n" + "\n".join(
        " <-> ".join(c) for c in found
    )


def test_known_cycle_edges_still_exist_and_still_close_a_cycle():
    """An entry that was fixed is removed from the list (it may only shrink)."""
    full = {m: set(t) for m, t in GRAPH.items()}
    for src, dst in KNOWN_CYCLE_EDGES:
        assert dst in GRAPH.get(src, {}), f"{src} no longer imports {dst}: remove it from KNOWN_CYCLE_EDGES"
        assert any(src in c and dst in c for c in cycles(full)), f"{src} -> {dst} closes no cycle: remove it"


def test_no_private_name_imported_across_modules():
    new = {k: v for k, v in PRIVATE.items() if k not in KNOWN_PRIVATE_IMPORTS}
    assert not new, "`_` names taken from another module (make them public where they live):\n" + "\n".join(
        f"{m}:{line} takes {t}.{n}" for (m, t, n), line in sorted(new.items())
    )
    gone = KNOWN_PRIVATE_IMPORTS - set(PRIVATE)
    assert not gone, f"fixed, remove from KNOWN_PRIVATE_IMPORTS: {sorted(gone)}"


def test_every_module_has_a_layer():
    for module in MODULES:
        layer_of(module)


def test_no_import_from_a_higher_layer():
    upward = {(m, t): line for m, targets in GRAPH.items() for t, line in targets.items() if layer_of(t) > layer_of(m)}
    new = {k: v for k, v in upward.items() if k not in KNOWN_UPWARD}
    assert not new, "imports from a higher layer (see LAYERS):\n" + "\n".join(
        f"{m}:{line} imports {t}" for (m, t), line in sorted(new.items())
    )
    gone = set(KNOWN_UPWARD) - set(upward)
    assert not gone, f"fixed, remove from KNOWN_UPWARD: {sorted(gone)}"
