"""Bad arguments to the Python API are refused by name, each class by one test: every field
of the C++ value types checks its type and its C++ type's range (no pybind11 "incompatible
function arguments" dump), a field or device given two ways raises, reset masks take bools
only and masked arrays are refused, and seeds are checked wherever they enter (issue 40,
part B)."""

from __future__ import annotations

import copy
import pickle

import numpy as np
import pytest

import batchsim
from batchsim.cli import main
from batchsim.errors import InvalidArgumentError
from batchsim.options import RendererConfig, RenderOptions, SimConfig, TaskConfig
from batchsim.scenes import NAVMESH_SETTING_NAMES, NavMeshSettings

VALUE_TYPES = {
    SimConfig: SimConfig.field_names,
    TaskConfig: TaskConfig.field_names,
    RenderOptions: RenderOptions.field_names,
    RendererConfig: RendererConfig.field_names,
    NavMeshSettings: NAVMESH_SETTING_NAMES,
}
# The C++ declarations (sim/config.hpp, env/simulator.hpp), read independently of the probe.
INTEGER_TYPES = {
    (SimConfig, "num_envs"): np.int32,
    (SimConfig, "seed"): np.uint64,
    (TaskConfig, "max_episode_steps"): np.int32,
    (RenderOptions, "width"): np.uint32,
    (RendererConfig, "views"): np.uint32,
}


def _set(cls, name, value):
    """Sets a field every way Python can: keywords (construction), replace(), assignment."""
    if hasattr(cls, "replace"):
        cls(**{name: value})
        cls().replace(**{name: value})
    setattr(cls(), name, value)


def _refused(cls, name, value):
    with pytest.raises(InvalidArgumentError) as caught:
        _set(cls, name, value)
    message = str(caught.value)
    assert message.startswith(f"{cls.__name__}.{name}: expected"), message
    assert "incompatible function arguments" not in message
    return message


def _bad_values(default) -> list:
    if isinstance(default, bool):
        return ["no", 0, 1.0, None]
    if isinstance(default, int):
        return ["4", 1.5, True, None, 2**64]
    if isinstance(default, float):
        return ["1", True, None, [1.0]]
    return [3, None]  # a choice by name, or a nested value type


def test_every_value_type_field_checks_its_type_and_range():
    for cls, names in VALUE_TYPES.items():
        for name in names:
            default = getattr(cls(), name)
            for value in _bad_values(default):
                _refused(cls, name, value)
            _set(cls, name, copy.copy(default))  # the default itself passes every way
    for (cls, name), dtype in INTEGER_TYPES.items():
        info = np.iinfo(dtype)
        message = _refused(cls, name, int(info.min) - 1)
        assert f"in {info.min}..{info.max}" in message
        _refused(cls, name, int(info.max) + 1)
        config = cls(**{name: int(info.max)})
        assert getattr(config, name) == info.max
        assert getattr(pickle.loads(pickle.dumps(config)), name) == info.max
    _refused(TaskConfig, "forward_step", 1e39)  # beyond float32: it would become inf
    assert RenderOptions(depth=np.bool_(False)).depth is False
    with pytest.raises(InvalidArgumentError, match="chunk_triangles: expected an integer"):
        batchsim.import_scene("absent.glb", "absent.bsscene", chunk_triangles=2**40)


@pytest.fixture(scope="module")
def split(procgen_dataset):
    return procgen_dataset[0] / "pointnav" / "train"


def test_a_setting_given_two_ways_raises(split, cpu_context):
    """Two different values for one field raise; a keyword over a field the config object
    left at its default is no conflict (BatchSim(split, 4, config=SimConfig(seed=1)))."""
    wide = RenderOptions(height=32, width=32)
    cases = [
        (batchsim.BatchSim, {"config": SimConfig(num_envs=8), "num_envs": 4}, "num_envs"),
        (batchsim.BatchSim, {"config": SimConfig(seed=1), "seed": 2}, "seed"),
        (batchsim.Simulator, {"config": SimConfig(num_envs=8), "num_envs": 4}, "num_envs"),
        (batchsim.Simulator, {"render": wide, "resolution": 16}, "height"),
        (
            batchsim.Simulator,
            {"render": RenderOptions(depth=False, rgb=True), "sensors": ("depth",)},
            "depth",
        ),
        (batchsim.Simulator, {"render": wide, "width": 16}, "width"),
        (batchsim.BatchNavEnv, {"context": cpu_context, "device": "cuda:0"}, "device"),
    ]
    for build, arguments, name in cases:
        extra = {} if build is batchsim.BatchSim or "context" in arguments else {"device": "cpu"}
        with pytest.raises(InvalidArgumentError, match=rf"^{name}: "):
            build(split, **arguments, **extra)
    sim = batchsim.BatchSim(split, 4, config=SimConfig(seed=1))  # num_envs: config's default
    assert (sim.num_envs, sim.config.seed) == (4, 1)
    simulator = batchsim.Simulator(
        split, 2, context=cpu_context, render=RenderOptions(depth=False, rgb=True), resolution=8
    )
    assert simulator.resolution == (8, 8)
    simulator.close()
    env = batchsim.BatchNavEnv(  # agreeing device and context, a config and other keywords
        split, context=cpu_context, device="cpu", config=SimConfig(num_envs=2), resolution=8
    )
    assert (env.num_envs, env.sim.resolution, env.sim.config.autoreset) == (2, (8, 8), "next_step")
    env.close()


def test_reset_masks_take_bools_and_masked_arrays_are_refused(split, cpu_context):
    sim = batchsim.BatchSim(split, num_envs=3)
    simulator = batchsim.Simulator(split, 3, context=cpu_context, resolution=8)
    env = batchsim.BatchNavEnv(split, 3, context=cpu_context, resolution=8)
    hidden = np.ma.masked_array([True, False, True], mask=[True, False, False])
    for target in (sim, simulator):
        target.reset(seed=0)
        for mask in (["no", "no", "no"], [0.0, 1.0, 0.0], [0, 2, 1], [True, False], hidden):
            with pytest.raises(ValueError, match=r"mask(\[\d\])?: |mask\[1\] is 2"):
                target.reset_envs(mask)
        with pytest.raises(ValueError, match=r"actions: .*masked array"):
            target.step(np.ma.masked_array([1, 1, 1], mask=[True, False, False]))
        target.step(np.array([1, 1, 1]))  # forward: every episode at step 1
        target.reset_envs([0, 1, 0])  # integers 0 and 1 are a mask too
        assert target.episode_step.tolist() == [1, 0, 1]
    env.reset(seed=0)
    with pytest.raises(ValueError, match=r"reset_mask: .*masked array"):
        env.reset(options={"reset_mask": hidden})
    with pytest.raises(ValueError, match=r"reset_mask: .*strings"):
        env.reset(options={"reset_mask": ["yes", "no", "no"]})
    for closing in (simulator, env):
        closing.close()


def test_seeds_are_checked_wherever_they_enter(split, capsys):
    sim = batchsim.BatchSim(split, num_envs=2)
    for seed in (-1, 1.5, "3", 2**64, True):
        with pytest.raises(InvalidArgumentError, match=r"^seed: expected an integer in 0.."):
            sim.reset(seed=seed)
    sim.reset(seed=2**64 - 1)
    assert sim.config.replace(seed=2**64 - 1).seed == 2**64 - 1
    with pytest.raises(SystemExit) as exited:  # argparse's own exit: status 2, one line
        main(["eval", "--agents", "random", "--split", str(split), "--seed", "-1"])
    assert exited.value.code == 2
    error = capsys.readouterr().err
    assert "argument --seed: expected an integer >= 0" in error and "Traceback" not in error
