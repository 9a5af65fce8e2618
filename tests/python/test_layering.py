"""The architecture's rules, read off the source (docs/architecture.md): #include arrows
between src/ folders run one way, down the layers; Python modules import only below
themselves; no source file passes 400 lines."""

from __future__ import annotations

import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "architecture_layers.py"


def load_layers():
    """scripts/architecture_layers.py: the one reading of the graph, which draws the page."""
    spec = importlib.util.spec_from_file_location("architecture_layers", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


layers = load_layers()
CPP_RANKS = layers.CPP_RANKS
cpp_edges = layers.cpp_edges
python_imports = layers.python_imports

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
