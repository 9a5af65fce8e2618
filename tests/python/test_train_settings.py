"""Settings declared once (issue 42, item 2): TrainConfig composes the simulator's own value
types instead of copying their fields, sets them by dotted path, builds each part once from
every source, and still reads the old flat names (overrides, files, checkpoints) with a
FlatNameWarning naming the new path."""

from __future__ import annotations

import dataclasses
import inspect
import json

import pytest

from batchsim.env import BatchNavEnv
from batchsim.errors import InvalidArgumentError
from batchsim.options import RenderOptions, SimConfig, TaskConfig
from batchsim.sensor_noise import SensorNoise
from batchsim.simulator import Simulator, make_context
from batchsim.train import sim_parts
from batchsim.train.checkpoint import config_of, config_state, read_checkpoint, write_checkpoint
from batchsim.train.config import TrainConfig
from batchsim.train.presets import make_config

# What a simulator is given rather than a setting of it: the split the trainer loads (and
# shares between its halves), and the device its own tensors live on, which it hands on.
GIVEN_TO_THE_SIMULATOR = {"dataset", "device"}


def _simulator_names() -> set[str]:
    names = {*SimConfig.field_names, *TaskConfig.field_names, *RenderOptions.field_names}
    names |= {f.name for f in dataclasses.fields(SensorNoise)} | {"sensors", "resolution"}
    for init in (Simulator.__init__, BatchNavEnv.__init__):
        names |= set(inspect.signature(init).parameters) - {"self", "fields"}
    return names


def test_no_trainer_field_mirrors_a_simulator_field():
    parts = set(sim_parts.PARTS)  # the simulator's own objects, composed
    own = {f.name for f in dataclasses.fields(TrainConfig)} - parts
    mirrored = own & _simulator_names()
    assert mirrored == GIVEN_TO_THE_SIMULATOR  # 18 before (17 settings and dataset)
    for name, kind in sim_parts.PARTS.items():
        assert isinstance(getattr(TrainConfig(), name), kind)


@pytest.mark.parametrize("device", ["gpu", "cuda:x", "cuda:", "cpu:0"])
def test_the_trainer_and_the_simulator_refuse_a_device_by_one_rule(device):
    with pytest.raises(InvalidArgumentError) as by_trainer:
        make_config("demo", None, [f"device={device}"])
    with pytest.raises(InvalidArgumentError) as by_simulator:
        make_context(device)
    for caught in (by_trainer, by_simulator):
        assert f"'cuda:N', got {device!r}" in str(caught.value)


def test_dotted_paths_set_the_parts_whatever_the_order():
    items = ["sim.steps_per_scene=800", "sim.task.max_episode_steps=700", "render.rgb=true"]
    for overrides in (items, items[::-1]):
        config = make_config("demo", None, overrides)
        assert (config.sim.steps_per_scene, config.sim.task.max_episode_steps) == (800, 700)
        assert config.sensors == ("depth", "rgb")
    with pytest.raises(InvalidArgumentError) as caught:
        make_config("demo", None, ["sim.steps_per_scene=600", "sim.task.max_episode_steps=700"])
    message = str(caught.value)  # the part's own rule, naming the overrides that set it
    assert "sim.steps_per_scene=600" in message and "max_episode_steps + 1 (701)" in message


@pytest.mark.parametrize(
    "override, words",
    [
        ("sim.num_envs=0", ["override 'sim.num_envs=0'", "sim: num_envs must be >= 1, got 0"]),
        ("sim.task.forward_noise=-1", ["'sim.task.forward_noise=-1'", "[0, forward_step]"]),
        ("render.backend=vulkan", ["'render.backend=vulkan'", "render: backend", "'vulkan'"]),
        ("sensor_noise.rgb_jitter=2", ["'sensor_noise.rgb_jitter=2'", "SensorNoise.rgb_jitter"]),
        ("render.width=5000", ["resolution", "4096"]),
        ("sim.seed=4294967296", ["sim.seed", "at most 4294967295"]),
        ("render.final_views=true", ["render.final_views: expected False"]),
        ("sim.task.success_reward=nan", ["sim.task.success_reward: expected a finite number"]),
        ("sim.task.no_such=1", ["'sim.task.no_such' is not a TrainConfig field"]),
    ],
)
def test_each_part_is_checked_by_its_owner_and_named(override, words):
    with pytest.raises(InvalidArgumentError) as caught:
        make_config("demo", None, [override])
    for word in words:
        assert word in str(caught.value), (override, str(caught.value))


def test_threads_are_automatic_unless_sim_num_threads_is_given():
    assert make_config("demo").explicit_threads == 0
    config = make_config("demo", None, ["sim.num_threads=3"])
    assert (config.auto_threads, config.explicit_threads) == (False, 3)
    assert make_config("demo", None, ["sim.num_threads=3", "auto_threads=on"]).explicit_threads == 0


FLAT = {
    "forward_noise": 0.05,
    "turn_noise": 2.0,
    "camera_height_jitter": 0.1,
    "max_episode_steps": 300,
    "steps_per_scene": 900,
    "scenes_resident": 3,
    "num_envs": 16,
    "seed": 7,
    "backend": "compute",
    "depth_noise": 0.02,
    "depth_edge_dropout": 0.1,
    "rgb_jitter": 0.3,
    "fov_jitter_degrees": 5.0,
    "sensors": ["depth", "rgb"],
    "resolution": 48,
    "num_threads": 2,
}


def _expect_flat(config: TrainConfig) -> None:
    sim, task, noise = config.sim, config.sim.task, config.sensor_noise
    assert (task.forward_noise, task.turn_noise) == pytest.approx((0.05, 2.0))  # float32
    assert task.camera_height_jitter == pytest.approx(0.1)
    assert (task.max_episode_steps, sim.steps_per_scene, sim.scenes_resident) == (300, 900, 3)
    assert (sim.num_envs, sim.seed, sim.num_threads, config.auto_threads) == (16, 7, 2, False)
    assert (config.render.backend, config.render.width, config.render.height) == ("compute", 48, 48)
    assert config.sensors == ("depth", "rgb")
    assert noise == SensorNoise(0.02, 0.1, 0.3, 5.0)


def test_old_flat_names_still_work_with_a_warning_naming_the_path(tmp_path):
    overrides = [f"{k}={','.join(v) if isinstance(v, list) else v}" for k, v in FLAT.items()]
    with pytest.warns(sim_parts.FlatNameWarning) as caught:
        _expect_flat(make_config("demo", None, overrides))
    messages = [str(w.message) for w in caught]
    assert len(messages) == len(FLAT)
    new = "override 'forward_noise=0.05': forward_noise is now sim.task.forward_noise;"
    assert any(m.startswith(new) for m in messages)
    file = tmp_path / "old.json"
    file.write_text(json.dumps(FLAT))
    with pytest.warns(sim_parts.FlatNameWarning) as caught:
        _expect_flat(make_config("demo", file))
    assert f"--config {file}: sensors is now render.depth and render.rgb;" in {
        str(w.message).split(" the flat")[0] for w in caught
    }
    with pytest.warns(sim_parts.FlatNameWarning, match="num_threads is now"):
        assert make_config("demo", None, ["num_threads=0"]).auto_threads


def test_a_checkpoint_with_the_old_flat_config_loads(tmp_path):
    old = dict(FLAT, sensors=["rgb"], hidden_size=64, gamma=0.9, retired_field=1)
    old |= {"extra": {"note": "v1"}, "dataset": "data/x/train", "num_threads": 0}
    write_checkpoint({"config": old, "policy": {}, "updates": 3}, tmp_path / "checkpoint.pt")
    config = config_of(read_checkpoint(tmp_path))
    assert config.sensors == ("rgb",) and (config.render.width, config.render.height) == (48, 48)
    assert (config.sim.num_envs, config.sim.task.max_episode_steps, config.auto_threads) == (
        16,
        300,
        True,
    )
    assert (config.hidden_size, config.gamma, config.extra) == (64, 0.9, {"note": "v1"})
    # This version's shape goes through a weights-only checkpoint and back unchanged.
    state = config_state(config)
    assert state["sim"]["task"]["max_episode_steps"] == 300
    write_checkpoint({"config": state, "policy": {}, "updates": 3}, tmp_path / "checkpoint.pt")
    assert config_of(read_checkpoint(tmp_path)) == config
