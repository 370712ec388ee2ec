"""The structure of the tree: every package stands on the floors below it only, no module imports
itself back through a loop of imports (counting the imports inside functions too), and a package never
imports another package's private names."""

import ast
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src"
PACKAGES = ("common", "candidates", "traffic", "flows", "sim", "synth")
#: what each package may import of the tree: the floors below it (``flows`` and ``sim`` stand side by side)
BELOW = {"common": set(), "candidates": {"common"}, "traffic": {"common", "candidates"},
         "flows": {"common", "candidates", "traffic"}, "sim": {"common", "candidates", "traffic"},
         "synth": {"common", "candidates", "traffic", "flows", "sim"}}


def _modules() -> dict[str, Path]:
    out = {}
    for pkg in PACKAGES:
        for f in (SRC / pkg).rglob("*.py"):
            parts = list(f.relative_to(SRC).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts = parts[:-1]
            out[".".join(parts)] = f
    return out


def _imports(name: str, path: Path, modules: dict[str, Path]) -> set[str]:
    """The tree's modules ``name`` imports (a package's face ``__init__`` stands for the package)."""
    is_pkg = path.name == "__init__.py"
    here = name.split(".") if is_pkg else name.split(".")[:-1]
    out = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = (here[: len(here) - node.level + 1] if node.level else []) + (node.module.split(".") if node.module else [])
            mod = ".".join(base)
            targets = [f"{mod}.{a.name}" if f"{mod}.{a.name}" in modules else mod for a in node.names]
        else:
            continue
        for t in targets:
            while t and t not in modules:
                t = t.rpartition(".")[0]
            if t and t != name:
                out.add(t)
    return out


def test_no_import_cycles():
    modules = _modules()
    faces = {m for m, p in modules.items() if p.name == "__init__.py"}
    # a package's face only hands names on: the loops that matter run between modules
    graph = {m: {t for t in _imports(m, p, modules) if t not in faces} for m, p in modules.items() if m not in faces}
    index, low, stack, on, cycles = {}, {}, [], set(), []

    def visit(v):      # Tarjan's strongly connected components
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                cycles.append(sorted(comp))

    for v in graph:
        if v not in index:
            visit(v)
    assert not cycles, f"modules importing each other: {cycles}"


def test_no_private_names_across_packages():
    modules = _modules()
    bad = []
    for name, path in modules.items():
        pkg = name.split(".")[0]
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                other = node.module.split(".")[0]
                if other in PACKAGES and other != pkg:
                    private = [a.name for a in node.names if a.name.startswith("_")]
                    private += [p for p in node.module.split(".")[1:] if p.startswith("_")]
                    if private:
                        bad.append(f"{name}: from {node.module} import {', '.join(private)}")
    assert not bad, bad


def test_packages_stand_on_the_floors_below():
    modules = _modules()
    bad = sorted(f"{m} imports {t}" for m, p in modules.items() for t in _imports(m, p, modules)
                 if t.split(".")[0] != m.split(".")[0] and t.split(".")[0] not in BELOW[m.split(".")[0]])
    assert not bad, bad
    # and the check sees imports at all: synth's command line stands on every floor
    cli = _imports("synth.cli", modules["synth.cli"], modules)
    assert {t.split(".")[0] for t in cli} >= {"common", "candidates", "synth"}


def _justified(lines: list[str], first: int, last: int, runs_start: int) -> bool:
    """A comment on the import's lines, or above it within its run of imports (the line before the run too)."""
    return any("#" in lines[i] for i in range(max(runs_start - 2, 0), last))


def test_imports_inside_functions_say_why():
    """An import inside a function is there for start-up time (docs/ARCHITECTURE.md, Start-up) and says so:
    a comment beside it, or one above its run of imports."""
    bad = []
    for name, path in _modules().items():
        lines = path.read_text().split("\n")
        tree = ast.parse("\n".join(lines))
        for fn in ast.walk(tree):
            if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            for body in [n.body for n in ast.walk(fn) if isinstance(getattr(n, "body", None), list)]:
                start = None
                for st in body:
                    if isinstance(st, (ast.Import, ast.ImportFrom)):
                        start = st.lineno if start is None else start
                        if not _justified(lines, st.lineno, st.end_lineno, start):
                            bad.append(f"{name}:{st.lineno}: {lines[st.lineno - 1].strip()}")
                    else:
                        start = None
    assert not bad, "imports inside functions without a reason:\n" + "\n".join(sorted(set(bad)))
