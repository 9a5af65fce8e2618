"""Configurations that cannot work are refused before anything is built, each with an error
that says what was expected and what was given: memory that cannot fit (with the largest
N that would), bad devices, impossible resolutions and sensors, more evaluation environments
than episodes, and checkpoints that do not fit the configuration."""

from __future__ import annotations

import dataclasses
import re

import numpy as np
import pytest

import batchsim
from batchsim import _core
from batchsim.cli import main
from batchsim.options import RenderOptions
from batchsim.train.checkpoint import check_compatible, config_state, write_checkpoint
from batchsim.train.config import TrainConfig

SPLIT = "pointnav/train"
BYTES_PER_4K_VIEW = 4096 * 4096 * (4 + 4) + 2 * 32  # depth + RGBA8, two 32-byte poses


@pytest.fixture(scope="module")
def split(procgen_dataset):
    return procgen_dataset[0] / SPLIT


def test_a_batch_that_cannot_fit_is_refused_before_any_allocation(split, cpu_context):
    allocations = _core.vulkan_allocations()
    with pytest.raises(batchsim.UnsupportedError) as info:
        batchsim.Simulator(
            split, 100_000, context=cpu_context, resolution=4096, sensors=("depth", "rgb")
        )
    message = str(info.value)
    assert _core.vulkan_allocations() == allocations
    assert "configuration does not fit in device memory: num_envs=100000 need " in message
    assert f"at {BYTES_PER_4K_VIEW} bytes each" in message
    available_mib = int(re.search(r"but (\d+) MiB is available", message).group(1))
    largest = int(re.search(r"the largest num_envs that fits is (\d+)", message).group(1))
    assert 0 < largest < 100_000
    assert largest * BYTES_PER_4K_VIEW <= available_mib << 20
    assert (largest + 2) * BYTES_PER_4K_VIEW > available_mib << 20


@pytest.mark.parametrize(
    ("device", "error", "message"),
    [
        (
            "gpu",
            batchsim.InvalidArgumentError,
            "expected None or 'cpu', 'cuda' or 'cuda:N', got 'gpu'",
        ),
        ("cuda:x", batchsim.InvalidArgumentError, "got 'cuda:x'"),
        ("cuda:7", batchsim.Error, "cuda:7"),
        ("tpu:0", batchsim.InvalidArgumentError, "got 'tpu:0'"),
    ],
)
def test_bad_devices_are_named(split, device, error, message):
    with pytest.raises(error, match=re.escape(message)):
        batchsim.Simulator(split, 2, device=device)


@pytest.mark.parametrize(
    "resolution", [0, -64, 5000, (64, 0), (64, 4097), 64.5, (64,), "64x64", (32, 32.5)]
)
def test_impossible_resolutions_are_refused(split, cpu_context, resolution):
    with pytest.raises(batchsim.InvalidArgumentError) as info:
        batchsim.Simulator(split, 2, context=cpu_context, resolution=resolution)
    message = str(info.value)
    assert message.startswith("resolution: expected ")
    assert message.endswith(f"got {resolution!r}")


def test_odd_resolutions_render(split, cpu_context):
    sim = batchsim.Simulator(split, 2, context=cpu_context, resolution=(15, 17))
    sim.reset(seed=0)
    assert np.from_dlpack(sim.depth).shape == (2, 1, 15, 17)
    sim.close()


def test_unknown_sensors_are_refused(split, cpu_context):
    with pytest.raises(batchsim.InvalidArgumentError, match=r"expected a non-empty subset of "):
        batchsim.Simulator(split, 2, context=cpu_context, sensors=("lidar",))


def test_eval_refuses_more_environments_than_episodes(split, capsys):
    episodes = len(batchsim.datasets.load_pointnav(split))
    code = main(["eval", "--agents", "random", "--split", str(split), "--envs", "1000"])
    err = capsys.readouterr().err
    assert code == 2
    assert f"--envs 1000: more environments than the {episodes} episodes of split {split}" in err
    assert f"expected --envs <= {episodes}" in err


def test_a_checkpoint_for_other_inputs_or_network_is_refused():
    saved = TrainConfig(render=RenderOptions(depth=True, rgb=False), hidden_size=512)
    other = RenderOptions(depth=False, rgb=True, width=128, height=128)
    wanted = dataclasses.replace(saved, render=other, hidden_size=256)
    with pytest.raises(batchsim.InvalidArgumentError) as info:
        check_compatible(saved, wanted, "checkpoint run/checkpoint.pt")
    message = str(info.value)
    assert message.startswith("checkpoint run/checkpoint.pt does not fit this configuration")
    assert "render.depth: checkpoint has True, this run asks for False" in message
    assert "render.rgb: checkpoint has False, this run asks for True" in message
    assert "render.width: checkpoint has 64, this run asks for 128" in message
    assert "hidden_size: checkpoint has 512, this run asks for 256" in message
    more_envs = saved.sim.replace(num_envs=8)
    check_compatible(saved, dataclasses.replace(saved, sim=more_envs, total_frames=1))


def test_resuming_with_another_sensor_is_refused_before_training(tmp_path, split):
    from batchsim.train.run import train

    saved = TrainConfig(dataset=str(split), log_dir=str(tmp_path))
    state = {"config": config_state(saved), "policy": {}, "updates": 0}
    write_checkpoint(state, tmp_path / "checkpoint.pt")
    wanted = dataclasses.replace(saved, render=RenderOptions(depth=False, rgb=True))
    with pytest.raises(batchsim.InvalidArgumentError, match=r"render\.depth: checkpoint has"):
        train(wanted, show_progress=False, resume=True)
