"""Shared fixtures. Every Context the suite creates runs under the Khronos validation layer
when it is installed (BATCHSIM_VALIDATION=1); test_validation_messages.py checks the count,
after every other test (the runs_last marker, below)."""

from __future__ import annotations

import os

os.environ.setdefault("BATCHSIM_VALIDATION", "1")

import pytest

import batchsim


def pytest_collection_modifyitems(config, items):
    """Moves tests marked runs_last to the end, keeping their order: the validation-message
    check reads a count that every Context of this process adds to (batchsim's
    validation_message_total), so it means "the whole suite was clean" only after every
    other test, and their module fixtures' Contexts, have finished. A subprocess would see
    none of those Contexts, so the order is the dependence, stated here, not by file name."""
    last = [item for item in items if item.get_closest_marker("runs_last")]
    if last:
        items[:] = [item for item in items if not item.get_closest_marker("runs_last")] + last


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


@pytest.fixture(params=["raster", "compute"])
def backend(request) -> str:
    """Each renderer backend in turn: tests that take it run once per backend."""
    return request.param


@pytest.fixture(scope="session")
def procgen_dataset():
    from pathlib import Path

    from batchsim.procgen.build import DatasetConfig, ensure_dataset

    root = Path(__file__).resolve().parents[2] / "build" / "test-data" / "procgen"
    out = Path(os.environ.get("BATCHSIM_TEST_DATA", root))
    manifest = ensure_dataset(out, DatasetConfig(**TEST_DATASET))
    return out, manifest


@pytest.fixture(scope="session")
def three_scene_split(procgen_dataset, tmp_path_factory):
    """All three procedural scenes in one split (the cached splits have one each)."""
    import shutil

    from batchsim.datasets import load_pointnav, write_pointnav

    root, _ = procgen_dataset
    out = tmp_path_factory.mktemp("three") / "data"
    shutil.copytree(root / "scene_datasets", out / "scene_datasets")
    by_scene = {}
    for name in ("train", "val", "test"):
        for episode in load_pointnav(root / "pointnav" / name):
            by_scene.setdefault(episode.scene_name, []).append(episode)
    write_pointnav(out / "pointnav", "all", by_scene)
    return out / "pointnav" / "all"


# The demo preset shrunk to a training run of seconds on the CPU: 2 updates of 32 frames.
TINY_TRAINING = {
    "sim.num_envs": 4,
    "render.width": 16,
    "render.height": 16,
    "rollout_steps": 8,
    "hidden_size": 32,
    "total_frames": 64,
    "device": "cpu",
    "sim.num_threads": 1,
}


@pytest.fixture(scope="session")
def train_split(procgen_dataset):
    """The cached dataset's train split, as its episodes file."""
    return procgen_dataset[0] / "pointnav" / "train" / "train.json.gz"


@pytest.fixture(scope="session")
def tiny_train_overrides(train_split):
    """overrides(log_dir, **fields): TINY_TRAINING on train_split, logging to log_dir, as
    `batchsim train`'s KEY=VALUE words; `fields` override any of it (dotted paths as
    **{"sim.seed": 5})."""

    def overrides(log_dir, **fields):
        tiny = {"dataset": train_split, **TINY_TRAINING, "log_dir": log_dir, **fields}
        return [f"{k}={v}" for k, v in tiny.items()]

    return overrides


@pytest.fixture(scope="session")
def tiny_train_config(tiny_train_overrides):
    """config(log_dir, **fields): the TrainConfig of the demo preset with
    tiny_train_overrides(log_dir, **fields)."""
    from batchsim.train.presets import make_config

    return lambda log_dir, **fields: make_config(
        "demo", overrides=tiny_train_overrides(log_dir, **fields)
    )


@pytest.fixture
def run_example():
    """Runs examples/<name> with arguments in a fresh interpreter; returns its stdout."""
    import subprocess
    import sys
    from pathlib import Path

    examples = Path(__file__).resolve().parents[2] / "examples"

    def run(name: str, *args, cwd=None) -> str:
        result = subprocess.run(
            [sys.executable, str(examples / name), *map(str, args)],
            capture_output=True,
            text=True,
            timeout=300,
            cwd=cwd,
        )
        assert result.returncode == 0, result.stderr
        return result.stdout

    return run


SMALL_ENVS = 4  # environments per small_envs env


@pytest.fixture
def small_envs(procgen_dataset, cpu_context):
    """make(**options): BatchNavEnvs of SMALL_ENVS environments on the cached dataset's train
    split, 16x20 depth unless options say otherwise, on one CPU-export context; all closed
    when the test ends."""
    split = procgen_dataset[0] / "pointnav" / "train"
    envs = []

    def make(**options):
        options = {"sensors": ("depth",), "resolution": (16, 20)} | options
        env = batchsim.BatchNavEnv(split, SMALL_ENVS, context=cpu_context, **options)
        envs.append(env)
        return env

    yield make
    for env in envs:
        env.close()


@pytest.fixture(scope="session")
def exact_train_config(tiny_train_config):
    """config(log_dir, **fields): tiny_train_config with the entropy and warm-up that the
    trainer's exact comparisons use (resume, overlap, recipe, signals, compiled)."""
    # warmup_frames: the demo preset's 5 updates, at these 32 frames each
    return lambda log_dir, **fields: tiny_train_config(
        log_dir, **{"entropy_coef": 0.05, "warmup_frames": 5 * 32, **fields}
    )
