"""The public API is typed for its users: tests/typing/user_script.py, a user's script with
every name typed, passes `mypy --strict` (BatchNavEnv through batchsim's lazy __getattr__,
reset()/step() results, BatchSim's output fields), catches a wrong argument type, and runs."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "tests" / "typing" / "user_script.py"


def mypy(path: Path) -> subprocess.CompletedProcess:
    pytest.importorskip("mypy")  # the lint extra
    cache = ROOT / "build" / "mypy-cache"
    return subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--cache-dir", str(cache), str(path)],
        capture_output=True,
        text=True,
        timeout=600,
    )


def test_user_script_passes_mypy_strict():
    result = mypy(SCRIPT)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "Success: no issues found" in result.stdout


def test_mypy_sees_the_types(tmp_path):
    # Not Any: a wrong argument and a wrong attribute are errors, and the types are ours.
    script = tmp_path / "wrong.py"
    script.write_text(
        "import batchsim\n"
        "env = batchsim.BatchNavEnv('split', 4)\n"
        "reveal_type(env.step(None))\n"
        "env.reset(seed='zero')\n"
        "batchsim.BatchSim('split', 4).rewards\n"
        "batchsim.SimConfig(num_envs='four')\n"
        "batchsim.RenderOptions(width=64).replace(dept=False)\n"
    )
    out = mypy(script).stdout
    assert "tuple[dict[str, Any], Any, Any, Any, dict[str, Any]]" in out
    assert 'Argument "seed" to "reset" of "BatchNavEnv" has incompatible type "str"' in out
    assert '"BatchSim" has no attribute "rewards"' in out  # while .reward is an ndarray
    assert 'Argument "num_envs" to "SimConfig" has incompatible type "str"' in out
    assert 'Unexpected keyword argument "dept" for "replace" of "RenderOptions"' in out


@pytest.mark.parametrize("name", ["TaskConfig", "SimConfig", "RenderOptions", "RendererConfig"])
def test_stub_keywords_are_the_fields(name):
    # The stub's keywords are written out by hand: they must be the runtime's fields, in order,
    # each typed as its attribute, or a type checker would pass a misspelt field.
    import ast

    import batchsim

    tree = ast.parse((ROOT / "python" / "batchsim" / "_core.pyi").read_text())
    cls = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == name)
    attributes = {
        n.target.id: ast.unparse(n.annotation)
        for n in cls.body
        if isinstance(n, ast.AnnAssign) and not ast.unparse(n.annotation).startswith("ClassVar")
    }
    fields = list(getattr(batchsim, name).field_names)
    assert list(attributes) == fields
    for method in ("__init__", "replace"):
        fn = next(n for n in cls.body if isinstance(n, ast.FunctionDef) and n.name == method)
        keywords = {a.arg: ast.unparse(a.annotation) for a in fn.args.kwonlyargs}
        assert keywords == attributes, method
        assert [a.arg for a in fn.args.args] == ["self"] and fn.args.kwarg is None, method


def test_output_field_annotations_are_the_outputs():
    # SimOutputFields makes its properties at import; its annotations are what mypy reads.
    import dataclasses

    from batchsim.sim import SimOutputFields, SimOutputs

    annotated = set(SimOutputFields.__annotations__) - {"outputs"}
    assert annotated == {field.name for field in dataclasses.fields(SimOutputs)}


def test_user_script_runs(procgen_dataset):
    split = procgen_dataset[0] / "pointnav" / "train"
    result = subprocess.run(
        [sys.executable, str(SCRIPT), str(split)], capture_output=True, text=True, timeout=300
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("env ")
