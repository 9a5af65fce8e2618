"""Simulator(double_buffer=True): the CPU simulates one half of the batch while the GPU
renders the other. Its results must be the one-submission step's, bit for bit: every output
array and every image at every step, across episode ends and scene swaps."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

import batchsim
from batchsim.options import SENSORS
from batchsim.sim import SimOutputs

ACTION_MIX = [0.1, 0.6, 0.15, 0.15]  # STOP, MOVE_FORWARD, TURN_LEFT, TURN_RIGHT
# Simulator.stats() that load times cannot change.
DETERMINISTIC_STATS = ("steps", "episodes_started", "unreachable", "scene_swaps", "env_switches")


def make(split, context, **options):
    """A small simulator whose episodes end every few steps and whose two slots swap among
    three scenes every 10 steps. Background loads crawl at 1 byte/s, so a scene loads when
    its first environment joins it (a step hurries a load it waits for), in whichever half
    that environment is: a half's render must show what that half loaded."""
    defaults = dict(
        loader_bytes_per_second=1.0,
        num_envs=5,
        sensors=("depth", "rgb"),
        resolution=(12, 16),
        scenes_resident=2,
        steps_per_scene=10,
        task=batchsim.TaskConfig(max_episode_steps=8),
        seed=4,
        num_threads=2,
        backend="compute",  # exact pixels; see assert_same for raster
    )
    return batchsim.Simulator(split, context=context, **(defaults | options))


def snapshot(sim) -> dict[str, np.ndarray]:
    """Copies of every output array and image. Environments that evaluation parked show
    whatever their last place holds (unspecified): their pixels are zeroed."""
    arrays = {f.name: getattr(sim.outputs, f.name).copy() for f in dataclasses.fields(SimOutputs)}
    for sensor in sim.sensors:
        image = np.from_dlpack(getattr(sim, sensor)).copy()
        image[~sim.active] = 0
        arrays[sensor] = image
    return arrays


def assert_same(a: dict, b: dict, step: int, backend: str = "compute") -> None:
    assert a.keys() == b.keys()
    for name in a:
        if name in SENSORS and backend == "raster":
            # Raster draws in the order its culling pass's atomic counter hands out, so an
            # exact depth tie may resolve either way, from run to run too: a pixel or two.
            assert (a[name] != b[name]).mean() <= 0.01, f"{name}, step {step}"
        else:
            np.testing.assert_array_equal(a[name], b[name], err_msg=f"{name}, step {step}")


def steps_of_both(one, two, seed: int, steps: int, backend: str = "compute"):
    """Steps both with the same random actions, checking they agree after each step;
    yields each step's index."""
    rng = np.random.default_rng(seed)
    for step in range(steps):
        actions = rng.choice(4, size=one.num_envs, p=ACTION_MIX)
        one.step(actions)
        two.step(actions)
        assert_same(snapshot(one), snapshot(two), step, backend)
        yield step


def twins(split, context, **options):
    """The same simulator twice: stepping at once, and double-buffered."""
    one = make(split, context, **options)
    two = make(split, context, double_buffer=True, **options)
    return one, two


@pytest.mark.parametrize(
    "autoreset, mode", [("next_step", "train"), ("same_step", "train"), ("same_step", "eval")]
)
def test_double_buffering_changes_no_result(
    three_scene_split, cpu_context, backend, autoreset, mode
):
    one, two = twins(
        three_scene_split, cpu_context, autoreset=autoreset, mode=mode, backend=backend
    )
    assert (one.renderer.batches, two.renderer.batches) == (1, 2)
    assert two.render_options.double_buffer
    one.reset()
    two.reset()
    assert_same(snapshot(one), snapshot(two), -1, backend)
    ended = 0
    for _ in steps_of_both(one, two, seed=0, steps=60, backend=backend):
        ended += int((one.terminated | one.truncated).sum())
        if one.active.any():  # real images
            assert (np.from_dlpack(one.depth)[one.active] > 0).mean() > 0.2
    stats = [{key: sim.stats()[key] for key in DETERMINISTIC_STATS} for sim in (one, two)]
    assert stats[0] == stats[1]
    assert stats[0]["steps"] == 60  # once per step, not per half
    assert ended > 10 and stats[0]["scene_swaps"] > 0  # episode ends and scene swaps compared


def test_final_views_are_kept_per_half(three_scene_split, cpu_context):
    one, two = twins(three_scene_split, cpu_context, final_views=True, num_envs=6)
    one.reset(seed=1)
    two.reset(seed=1)
    ended_total = 0
    for step in steps_of_both(one, two, seed=1, steps=40):
        np.testing.assert_array_equal(one.final_pointgoal, two.final_pointgoal)
        ended = one.terminated | one.truncated
        for name in ("final_depth", "final_rgb"):  # the ended environments' entries are new
            final = [np.from_dlpack(getattr(sim, name))[ended] for sim in (one, two)]
            np.testing.assert_array_equal(*final, err_msg=f"{name}, step {step}")
        ended_total += int(ended.sum())
    assert ended_total > 10


@pytest.mark.parametrize("num_envs, batches", [(1, 1), (2, 2)])
def test_small_batches(three_scene_split, cpu_context, num_envs, batches):
    one, two = twins(three_scene_split, cpu_context, num_envs=num_envs)
    assert two.renderer.batches == batches  # one environment: nothing to overlap
    one.reset()
    two.reset()
    for step in range(12):
        actions = np.full(num_envs, 1 + step % 3)
        one.step(actions)
        two.step_async(actions)  # the same halves, on the step thread
        two.step_wait()
        assert_same(snapshot(one), snapshot(two), step)
