"""The code examples at the top of the public modules' docstrings run: each first indented
block is executed as written, with the test dataset in place of the paths it names, a few
environments in place of thousands, and the names it leaves to the reader (a policy, a
context, poses) defined. An example that calls what does not exist fails here."""

from __future__ import annotations

import importlib
import textwrap

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import batchsim  # noqa: E402

N = 4
# module: {text in its example: what the test runs instead}
MODULES = {
    "batchsim.renderer": {"views=1024": f"views={N}"},
    "batchsim.simulator": {", 1024,": f", {N},", "range(100)": "range(3)"},
    "batchsim.env": {", 1024,": f", {N},", 'device="cuda:0"': 'device="cpu"'},
    "batchsim.registration": {},
    "batchsim.integrations.sb3": {
        ", 16,": f", {N},",
        "SB3VecEnv(env))": "SB3VecEnv(env), n_steps=8, batch_size=32)",
        "learn(10_000)": "learn(32)",
    },
    "batchsim.integrations.torchrl": {", 16,": f", {N},", "max_steps=100": "max_steps=3"},
}
NEEDS = {
    "batchsim.integrations.sb3": "stable_baselines3",
    "batchsim.integrations.torchrl": "torchrl",
}


def first_example(docstring: str) -> str:
    """The first block of lines indented by 4 in `docstring`, dedented."""
    block: list[str] = []
    for line in docstring.splitlines():
        if line.startswith("    ") or (block and not line.strip()):
            block.append(line)
        elif block:
            break
    return textwrap.dedent("\n".join(block)).strip()


@pytest.fixture
def names(procgen_dataset, cpu_context):
    """What the examples leave to the reader, on the test dataset."""
    root = procgen_dataset[0]
    rng = np.random.default_rng(0)
    split = str(root / "pointnav" / "train")
    return {
        "batchsim": batchsim,
        "torch": torch,
        "np": np,
        "split": split,
        "dataset": split,
        "context": cpu_context,
        "policy": lambda *inputs: rng.integers(0, 4, N),
        "actions": np.ones(N, np.int64),
        "positions": np.tile(np.float32([0, 1.25, 0]), (N, 1)),
        "rotations": np.tile(np.float32([0, 0, 0, 1]), (N, 1)),
        "places": np.zeros(N, np.uint32),
        "scene": next((root / "scene_datasets").rglob("*.bsscene")),
    }


@pytest.mark.parametrize("module", sorted(MODULES))
def test_module_example_runs(module, names, tmp_path, monkeypatch):
    if module in NEEDS:
        pytest.importorskip(NEEDS[module])
    code = first_example(importlib.import_module(module).__doc__)
    assert code, f"{module} has no indented example"
    for text, replacement in MODULES[module].items():
        assert text in code, f"{module}'s example changed: update this test's substitutions"
        code = code.replace(text, replacement)
    code = code.replace('"data/procgen/pointnav/train"', "split")
    code = code.replace('"apartment.bsscene"', "str(scene)")
    monkeypatch.chdir(tmp_path)  # anything an example writes stays in the test's folder
    exec(compile(code, f"<{module} docstring>", "exec"), dict(names))
