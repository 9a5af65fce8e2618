"""The architecture's rules, read off the source (docs/architecture.md): #include arrows
between src/ folders run one way, down the layers; Python modules import only below
themselves; no source file passes 400 lines."""

from __future__ import annotations

import ast
import re
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

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
INCLUDE = re.compile(r'^#include "(\w+)/', re.M)

# Python modules of python/batchsim and what each must never import (directly or not).
PY_FORBIDDEN = {
    "options": {"sim", "simulator", "env", "train"},
    "actions": {"sim", "simulator", "env", "train"},
    "datasets": {"sim", "simulator", "env", "train"},
    "sim": {"simulator", "env", "train", "renderer"},
    "simulator": {"env", "train"},
    "env": {"train", "cli"},
    "viz": {"train", "cli"},
}
LINE_LIMIT = 400
CODE_SUFFIXES = {".py", ".cpp", ".hpp", ".h", ".glsl", ".sh"}


def cpp_edges() -> dict[str, set[str]]:
    edges = defaultdict(set)
    for path in (ROOT / "src").rglob("*.[ch]pp"):
        folder = path.relative_to(ROOT / "src").parts[0]
        edges[folder] |= set(INCLUDE.findall(path.read_text())) - {folder}
    return edges


def test_cpp_folders_include_only_lower_layers():
    edges = cpp_edges()
    assert set(edges) <= set(CPP_RANKS), f"a src/ folder without a layer: {set(edges)}"
    back = [
        f"{a} -> {b}"
        for a, targets in edges.items()
        for b in targets
        if b in CPP_RANKS and CPP_RANKS[b] >= CPP_RANKS[a]
    ]
    assert not back, f"#include arrows against the layers: {back}"
    assert "assets" in edges["env"] and "nav" in edges["assets"]  # the scan saw real edges


def python_imports() -> dict[str, set[str]]:
    """Top-level module of python/batchsim -> the batchsim modules it imports anywhere in it
    (function-level imports included)."""
    package = ROOT / "python" / "batchsim"
    modules = {p.stem if p.is_file() else p.name for p in package.iterdir()}
    edges = defaultdict(set)
    for path in package.rglob("*.py"):
        unit = path.relative_to(package).with_suffix("").parts[0]
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module]
                if node.module == "batchsim":
                    names += [f"batchsim.{alias.name}" for alias in node.names]
            elif isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            else:
                continue
            for name in names:
                parts = name.split(".")
                if parts[0] == "batchsim" and len(parts) > 1 and parts[1] in modules:
                    edges[unit].add(parts[1])
        edges[unit].discard(unit)
    return edges


def reachable(edges: dict[str, set[str]], start: str) -> set[str]:
    seen, todo = set(), [start]
    while todo:
        for target in edges.get(todo.pop(), ()):
            if target not in seen:
                seen.add(target)
                todo.append(target)
    return seen


def test_python_modules_import_only_below_themselves():
    edges = python_imports()
    assert "sim" in edges["simulator"] and "simulator" in edges["env"]  # real edges seen
    for module, forbidden in PY_FORBIDDEN.items():
        assert not reachable(edges, module) & forbidden, (module, reachable(edges, module))
    for module in edges:
        if module not in ("__init__", "__main__"):  # the package root re-exports
            assert module not in reachable(edges, module), f"import cycle through {module}"


def test_no_source_file_passes_the_line_limit():
    folders = ("src", "python", "shaders", "tests", "benchmarks", "examples", "fuzz", "scripts")
    long = []
    for folder in folders:
        for path in (ROOT / folder).rglob("*"):
            if path.suffix in CODE_SUFFIXES and "corpus" not in path.parts:
                lines = path.read_text(errors="replace").count("\n")
                if lines > LINE_LIMIT:
                    long.append(f"{path.relative_to(ROOT)} ({lines})")
    assert not long, f"over {LINE_LIMIT} lines: {long}"
