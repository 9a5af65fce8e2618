"""The layer graph of docs/architecture.md, read off the code: the #include arrows between
src/ folders, ranked by CPP_RANKS, and the imports between the main modules of
python/batchsim. tests/python/test_layering.py checks the rules on the same reading.

    python3 scripts/architecture_layers.py          # check: exits 1 if the page is stale
    python3 scripts/architecture_layers.py --write  # redraw the page's generated block
"""

from __future__ import annotations

import argparse
import ast
import os
import re
import sys
import tempfile
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "architecture.md"
BEGIN, END = "<!-- layers:begin -->", "<!-- layers:end -->"
ARROW = "──►"
WIDTH = 100  # the widest line of the block, to read without scrolling

# Lower layers first: a folder may include only folders of a lower rank (and itself).
CPP_RANKS = {
    "core": 0,
    "vk": 1,
    "nav": 1,
    "device": 2,
    "assets": 2,
    "diag": 3,
    "sim": 3,
    "render": 3,
    "env": 4,
    "bindings": 5,
}
# What each folder owns, in a few words (the page's table says more).
CPP_LABELS = {
    "core": "errors, threads, files",
    "vk": "Vulkan helpers",
    "nav": "NavMesh, baking",
    "device": "GpuContext, PersistentTensor",
    "assets": "packed scenes, BVH",
    "diag": "PatternFill self-test",
    "sim": "BatchSim",
    "render": "BatchRenderer",
    "env": "Simulator, SceneMirror",
    "bindings": "pybind11 only",
}
# The Python modules the page draws (helpers such as errors or _files are left out), with
# what each owns; their layers are computed from the imports among them.
PY_LABELS = {
    "train": "Trainer",
    "env": "BatchNavEnv",
    "simulator": "Simulator",
    "sim": "BatchSim",
    "renderer": "BatchRenderer",
    "diag": "PatternFill",
    "datasets": "EpisodeTable",
    "options": "SimConfig, ...",
    "actions": "action checks",
    "scenes": "import_scene",
}
INCLUDE = re.compile(r'^#include "(\w+)/', re.M)
PACKAGE = ROOT / "python" / "batchsim"


def cpp_edges() -> dict[str, set[str]]:
    """src/ folder -> the other src/ folders its files #include."""
    edges = defaultdict(set)
    for path in (ROOT / "src").rglob("*.[ch]pp"):
        folder = path.relative_to(ROOT / "src").parts[0]
        edges[folder] |= set(INCLUDE.findall(path.read_text())) - {folder}
    return edges


def imported_names(tree: ast.AST) -> list[str]:
    """Every module name a file imports, anywhere in it (function-level imports included)."""
    names = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            names.append(node.module)
            if node.module == "batchsim":
                names += [f"batchsim.{alias.name}" for alias in node.names]
        elif isinstance(node, ast.Import):
            names += [alias.name for alias in node.names]
    return names


def python_imports() -> dict[str, set[str]]:
    """Top-level module of python/batchsim -> the batchsim modules it imports."""
    modules = {p.stem if p.is_file() else p.name for p in PACKAGE.iterdir()}
    edges = defaultdict(set)
    for path in PACKAGE.rglob("*.py"):
        unit = path.relative_to(PACKAGE).with_suffix("").parts[0]
        for name in imported_names(ast.parse(path.read_text())):
            parts = name.split(".")
            if parts[0] == "batchsim" and len(parts) > 1 and parts[1] in modules:
                edges[unit].add(parts[1])
        edges[unit].discard(unit)
    return edges


def is_module(dotted: str) -> bool:
    """Whether a dotted batchsim name is a module or package of python/batchsim."""
    path = PACKAGE.parent.joinpath(*dotted.split("."))
    files = (path.with_suffix(suffix) for suffix in (".py", ".pyi"))  # _core: a .so and a stub
    return (path / "__init__.py").is_file() or any(f.is_file() for f in files)


def module_name(path: Path) -> str:
    """The dotted name of a file of python/batchsim (a package's __init__.py: the package)."""
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def reaching_imports(source: str, module: str) -> list[str]:
    """The imports of one file (`module`: its dotted name) that reach up through the package
    face (`from batchsim import Scene`: the owner module hides behind the re-export) or take
    another module's private name (`from batchsim.x import _helper`). Importing a module,
    `from batchsim import _core` say, is neither."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.ImportFrom) or node.level or not node.module:
            continue
        if node.module != "batchsim" and not node.module.startswith("batchsim."):
            continue
        for alias in node.names:
            name = alias.name
            if is_module(f"{node.module}.{name}"):
                continue
            if node.module == "batchsim" and module != "batchsim":
                found.append(f"{module}: from batchsim import {name} (take it from its owner)")
            elif name.startswith("_") and not name.startswith("__") and node.module != module:
                found.append(f"{module}: from {node.module} import {name} (a private name)")
    return found


def package_reaching_imports() -> list[str]:
    """reaching_imports over every file of python/batchsim."""
    return [
        problem
        for path in sorted(PACKAGE.rglob("*.py"))
        for problem in reaching_imports(path.read_text(), module_name(path))
    ]


def module_level(body: list[ast.stmt]):
    """The statements run on import: the body and its if/try blocks, not functions'."""
    for node in body:
        yield node
        if isinstance(node, (ast.If, ast.Try)):
            yield from module_level(node.body + node.orelse + getattr(node, "finalbody", []))


def sibling_imports(package: str) -> dict[str, set[str]]:
    """Module of `package` -> the modules of it that it imports at module level, under
    TYPE_CHECKING too (a function-level import defers on purpose, so is not counted); the
    package's __init__ (its face) is left out."""
    edges = defaultdict(set)
    for path in (PACKAGE.parent / package.replace(".", "/")).glob("*.py"):
        module = module_name(path)
        if path.stem == "__init__":
            continue
        edges[module] = set()
        for node in module_level(ast.parse(path.read_text()).body):
            if isinstance(node, ast.ImportFrom) and node.module and not node.level:
                names = [f"{node.module}.{alias.name}" for alias in node.names] + [node.module]
                edges[module] |= {n for n in names if n.startswith(f"{package}.") and is_module(n)}
        edges[module].discard(module)
    return edges


def depths(edges: dict[str, set[str]], nodes: list[str]) -> dict[str, int]:
    """Each node's layer: 0 if it imports none of `nodes`, else one above its highest
    import (the imports are acyclic: test_layering checks it)."""
    found: dict[str, int] = {}

    def depth(node: str) -> int:
        if node not in found:
            below = [depth(t) for t in edges.get(node, ()) if t in nodes]
            found[node] = 1 + max(below, default=-1)
        return found[node]

    for node in nodes:
        depth(node)
    return found


def wrapped(head: str, targets: list[str]) -> list[str]:
    """`head ──► a, b, ...`, the targets wrapped under the first one past WIDTH."""
    if not targets:
        return [head]
    lines, line = [], f"{head}{ARROW} {targets[0]}"
    for target in targets[1:]:
        if len(line) + len(target) + 2 > WIDTH:
            lines.append(line + ",")
            line = " " * (len(head) + len(ARROW) + 1) + target
        else:
            line += f", {target}"
    return [*lines, line]


def layer_lines(ranks, labels, edges, display) -> list[str]:
    """Nodes, highest layer first: layer, name, label and what each builds on."""
    order = sorted(ranks, key=lambda n: (-ranks[n], n))
    rows = []
    for node in order:
        targets = sorted(edges.get(node, set()) & set(ranks), key=lambda t: (-ranks[t], t))
        cells = (str(ranks[node]), display(node), f"({labels[node]})")
        rows.append((cells, [display(t) for t in targets]))
    widths = [max(len(cells[i]) for cells, _ in rows) for i in range(3)]
    lines = []
    for cells, targets in rows:
        head = (
            "   " + "  ".join(cell.ljust(w) for cell, w in zip(cells, widths, strict=True)) + "  "
        )
        lines += wrapped(head, targets)
    return lines


def cpp_display(folder: str) -> str:
    return f"{folder}/"


def py_display(module: str) -> str:
    return f"{module}/" if (PACKAGE / module).is_dir() else f"{module}.py"


def render_block() -> str:
    """The page's generated block, markers included."""
    py_edges = python_imports()
    py_ranks = depths(py_edges, list(PY_LABELS))
    lines = [
        BEGIN,
        "```",
        " Python (python/batchsim/): layer, module, what it imports among the modules drawn",
        *layer_lines(py_ranks, PY_LABELS, py_edges, py_display),
        " ─────────────── batchsim._core (src/bindings/: binding only) ───────────────",
        " C++ (src/): layer, folder, the folders it #includes (all of lower layers)",
        *layer_lines(CPP_RANKS, CPP_LABELS, cpp_edges(), cpp_display),
        "```",
        END,
    ]
    return "\n".join(line.rstrip() for line in lines)


def current_block(text: str) -> str:
    start, end = text.find(BEGIN), text.find(END)
    if start < 0 or end < start:
        raise SystemExit(f"{DOC}: the markers {BEGIN} ... {END} are missing")
    return text[start : end + len(END)]


def write_doc(text: str) -> None:
    """Replaces the page atomically (a temporary file renamed over it)."""
    fd, temporary = tempfile.mkstemp(dir=DOC.parent, prefix=f".{DOC.name}.")
    with os.fdopen(fd, "w") as f:
        f.write(text)
    os.replace(temporary, DOC)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--write", action="store_true", help="update docs/architecture.md")
    args = parser.parse_args()
    text = DOC.read_text()
    old, new = current_block(text), render_block()
    if old == new:
        return 0
    if args.write:
        write_doc(text.replace(old, new))
        print(f"updated {DOC.relative_to(ROOT)}")
        return 0
    print(f"{DOC.relative_to(ROOT)} is stale; run: python3 scripts/architecture_layers.py --write")
    return 1


if __name__ == "__main__":
    sys.exit(main())
