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


@pytest.mark.parametrize(
    "name", ["TaskConfig", "SimConfig", "RenderOptions", "RendererConfig", "NavMeshSettings"]
)
def test_stub_keywords_are_the_fields(name):
    # The stub's keywords (a TypedDict the constructor unpacks) are written by hand: they must
    # be the class's attributes, in order and typed alike, or a type checker would pass a
    # misspelt field; for the option classes, the runtime's field_names too.
    import ast

    import batchsim

    tree = ast.parse((ROOT / "python" / "batchsim" / "_core_options.pyi").read_text())
    classes = {n.name: n for n in tree.body if isinstance(n, ast.ClassDef)}

    def annotated(cls: ast.ClassDef) -> dict[str, str]:
        return {
            n.target.id: ast.unparse(n.annotation)
            for n in cls.body
            if isinstance(n, ast.AnnAssign) and not ast.unparse(n.annotation).startswith("ClassVar")
        }

    attributes = annotated(classes[name])
    assert annotated(classes[f"_{name}Fields"]) == attributes
    runtime = getattr(batchsim, name)
    fields = getattr(runtime, "field_names", None) or [f for f in attributes if hasattr(runtime, f)]
    assert list(attributes) == list(fields)
    keyworded = [
        fn
        for fn in classes[name].body
        if isinstance(fn, ast.FunctionDef) and fn.name in ("__init__", "replace")
    ]
    assert keyworded and keyworded[0].name == "__init__"
    for fn in keyworded:
        assert ast.unparse(fn.args.kwarg.annotation) == f"Unpack[_{name}Fields]", fn.name
        assert [a.arg for a in fn.args.args] == ["self"] and not fn.args.kwonlyargs, fn.name
