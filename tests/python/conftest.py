"""Shared fixtures. Every Context the suite creates runs under the Khronos validation layer
when it is installed (BATCHSIM_VALIDATION=1); test_zz_validation.py checks the count."""

from __future__ import annotations

import os

os.environ.setdefault("BATCHSIM_VALIDATION", "1")

import pytest

import batchsim


@pytest.fixture(scope="module")
def context() -> batchsim.Context:
    """The default device, exporting wherever batchsim chooses (CUDA on NVIDIA)."""
    return batchsim.Context()


@pytest.fixture(scope="module")
def cpu_context() -> batchsim.Context:
    return batchsim.Context(export="cpu")


@pytest.fixture(scope="module")
def cuda_context() -> batchsim.Context:
    status = batchsim.cuda_status()
    if not status["available"]:
        pytest.skip(f"no CUDA: {status['reason']}")
    return batchsim.Context(device="cuda:0", export="cuda")


# A small procedural dataset, generated on first use and cached between sessions (under
# build/, which git ignores; BATCHSIM_TEST_DATA moves it).
TEST_DATASET = dict(num_scenes=3, seed=5, episodes_per_scene=20, triangle_budget=30_000)


@pytest.fixture(scope="session")
def procgen_dataset():
    from pathlib import Path

    from batchsim.procgen.build import DatasetConfig, ensure_dataset

    root = Path(__file__).resolve().parents[2] / "build" / "test-data" / "procgen"
    out = Path(os.environ.get("BATCHSIM_TEST_DATA", root))
    manifest = ensure_dataset(out, DatasetConfig(**TEST_DATASET))
    return out, manifest


@pytest.fixture
def run_example():
    """Runs examples/<name> with arguments in a fresh interpreter; returns its stdout."""
    import subprocess
    import sys
    from pathlib import Path

    examples = Path(__file__).resolve().parents[2] / "examples"

    def run(name: str, *args) -> str:
        result = subprocess.run(
            [sys.executable, str(examples / name), *map(str, args)],
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert result.returncode == 0, result.stderr
        return result.stdout

    return run
