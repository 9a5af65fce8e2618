"""The architecture's rules, read off the source (docs/architecture.md): #include arrows
between src/ folders run one way, down the layers; Python modules import only below
themselves, with no cycle among a subpackage's modules (TYPE_CHECKING imports included), and
reach neither up through the package face nor into another module's private names; no
source file passes 400 lines."""

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
    # The step's GPU copies are device/'s (copies.hpp): env/ reaches Vulkan through it.
    assert "vk" not in edges["env"] and "vk" in edges["device"], edges["env"]


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


# Subpackages whose modules import one way (TYPE_CHECKING imports included); datasets is
# not yet: its scenes.py names pointnav.PointNavDataset under TYPE_CHECKING.
ACYCLIC_PACKAGES = ("procgen", "cli", "viz", "bench", "train", "integrations")


def test_no_import_cycle_inside_a_subpackage():
    """Type-only circles too: procgen's layout.py once named bays.py and ramps.py under
    TYPE_CHECKING while they imported it."""
    for package in ACYCLIC_PACKAGES:
        edges = layers.sibling_imports(f"batchsim.{package}")
        assert edges, f"no modules seen in batchsim.{package}"
        for module in edges:
            assert module not in reachable(edges, module), f"import cycle through {module}"
    procgen = layers.sibling_imports("batchsim.procgen")
    assert "batchsim.procgen.plan" in procgen["batchsim.procgen.layout"]  # real edges seen


def test_the_cycle_check_sees_type_checking_imports(monkeypatch, tmp_path):
    """On a copy of two modules that import each other, one only under TYPE_CHECKING."""
    package = tmp_path / "batchsim" / "pkg"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "a.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from batchsim.pkg.b import B\n"
    )
    (package / "b.py").write_text("from batchsim.pkg.a import A\n")
    monkeypatch.setattr(layers, "PACKAGE", tmp_path / "batchsim")
    edges = layers.sibling_imports("batchsim.pkg")
    assert "batchsim.pkg.a" in reachable(edges, "batchsim.pkg.a")


def test_no_import_reaches_up_through_the_face_or_into_a_private_name():
    assert layers.package_reaching_imports() == []


def test_the_reach_check_fails_on_the_old_imports():
    """The imports issue 42's review found: each is caught, module imports are not."""
    check = layers.reaching_imports
    assert check("from batchsim import Scene\n", "batchsim.procgen.build") == [
        "batchsim.procgen.build: from batchsim import Scene (take it from its owner)"
    ]
    old_bays = "from batchsim.procgen.layout import CELL, _label, runs\n"
    assert check(old_bays, "batchsim.procgen.bays") == [
        "batchsim.procgen.bays: from batchsim.procgen.layout import _label (a private name)"
    ]
    fine = "from batchsim import _core, datasets\nfrom batchsim.scenes import Scene\n"
    assert check(fine, "batchsim.procgen.build") == []
    assert check("from batchsim._version import __version__\n", "batchsim.cli") == []


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


def test_architecture_page_draws_the_code_graph():
    """docs/architecture.md's layer block is the one the code draws: a new include, import
    or src/ folder fails here until the page is redrawn."""
    page = layers.DOC.read_text()
    drawn, code = layers.current_block(page), layers.render_block()
    assert drawn == code, (
        "docs/architecture.md's layer diagram differs from the code's graph; run "
        "`python3 scripts/architecture_layers.py --write` and review the diff"
    )


def test_every_src_folder_is_drawn_and_described():
    folders = {p.name for p in (ROOT / "src").iterdir() if p.is_dir()}
    assert folders == set(CPP_RANKS) == set(layers.CPP_LABELS), (
        "every src/ folder needs a layer (CPP_RANKS) and a label (CPP_LABELS) in "
        f"scripts/architecture_layers.py: folders {sorted(folders)}"
    )
    table = layers.DOC.read_text()
    missing = [f for f in sorted(folders) if f"| `src/{f}/` |" not in table]
    assert not missing, f"docs/architecture.md's folder table lacks {missing}"


def test_a_new_include_or_folder_makes_the_page_stale(monkeypatch, tmp_path):
    """The check can fail, and --write redraws only the block: on a copy of the page, an
    include the page does not draw (sim -> vk) and a new folder make it stale."""
    edges = layers.cpp_edges()
    monkeypatch.setattr(layers, "cpp_edges", lambda: {**edges, "sim": edges["sim"] | {"vk"}})
    monkeypatch.setitem(layers.CPP_RANKS, "extra", 2)
    monkeypatch.setitem(layers.CPP_LABELS, "extra", "new")
    page = tmp_path / "architecture.md"
    original = layers.DOC.read_text()
    page.write_text(original)
    monkeypatch.setattr(layers, "DOC", page)
    monkeypatch.setattr(layers, "ROOT", tmp_path)
    monkeypatch.setattr("sys.argv", ["architecture_layers.py"])
    assert layers.main() == 1 and page.read_text() == original  # the check writes nothing
    monkeypatch.setattr("sys.argv", ["architecture_layers.py", "--write"])
    assert layers.main() == 0
    block = layers.current_block(page.read_text())
    sim_line = next(line for line in block.splitlines() if " sim/ " in line)
    assert "vk/" in sim_line and "extra/ " in block
    assert page.read_text().replace(block, "") == original.replace(
        layers.current_block(original), ""
    )
    assert layers.main() == 0  # now current
