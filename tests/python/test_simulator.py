"""batchsim.Simulator: the simulator and the renderer behind one step. Its observations are
what a BatchRenderer draws from the simulator's own camera poses, scenes follow the
simulator's slots, and step_async/step_wait give the same results as step."""

from __future__ import annotations

import math
import threading

import numpy as np
import pytest

import batchsim

SPLIT = "pointnav/train/train.json.gz"


@pytest.fixture(scope="module")
def dataset(procgen_dataset):
    root, _ = procgen_dataset
    return root / SPLIT


def make(dataset, context, num_envs=6, **options):
    options.setdefault("resolution", (20, 24))
    options.setdefault("scenes_resident", 2)
    return batchsim.Simulator(dataset, num_envs, context=context, **options)


def rendered_from_poses(sim, context) -> np.ndarray:
    """What a separate BatchRenderer draws from the simulator's current camera poses."""
    height, width = sim.resolution
    renderer = batchsim.BatchRenderer(
        context,
        batchsim.RendererConfig(
            views=sim.num_envs, width=width, height=height, places=2 * sim.scenes_resident
        ),
    )
    scene_at = {int(r): int(s) for r, s in zip(sim.resident_scene, sim.scene_index, strict=True)}
    for place, scene in scene_at.items():
        renderer.set_scene(place, batchsim.Scene.load(sim.scene_paths[scene]))
    renderer.render(
        sim.camera_position.copy(), sim.camera_rotation.copy(), sim.resident_scene.astype(np.uint32)
    )
    return np.from_dlpack(renderer.depth).copy()


def test_observations_are_the_renders_of_the_simulators_cameras(dataset, cpu_context):
    sim = make(dataset, cpu_context)
    sim.reset(seed=3)
    rng = np.random.default_rng(0)
    for _ in range(5):
        sim.step(rng.integers(1, 4, sim.num_envs))
    depth = np.from_dlpack(sim.depth)
    assert depth.shape == (6, 1, 20, 24) and sim.rgb is None
    assert (depth > 0).mean() > 0.2
    np.testing.assert_allclose(depth, rendered_from_poses(sim, cpu_context), atol=1e-4)


def test_the_renderer_is_a_batchsim_batchrenderer_on_the_consumer_stream(
    dataset, cpu_context, monkeypatch
):
    """One renderer object whatever the door: Simulator.renderer is the batchsim.BatchRenderer
    users make themselves (not the raw _core one, whose render() took the default stream),
    made once, around the simulator's own renderer, and its calls ask for the stream."""
    sim = make(dataset, cpu_context)
    sim.reset(seed=4)
    renderer = sim.renderer
    assert type(renderer) is batchsim.BatchRenderer and renderer is sim.renderer
    assert renderer.depth.data_ptr == sim.depth.data_ptr  # the simulator's views
    poses = sim.camera_position.copy(), sim.camera_rotation.copy()
    places = sim.resident_scene.astype(np.uint32)
    first = np.from_dlpack(sim.depth).copy()
    sim.step(np.full(sim.num_envs, 1))
    assert not np.array_equal(np.from_dlpack(sim.depth), first)  # every agent moved or turned
    asked = []

    def spy(device, stream=None):
        asked.append((device, stream))
        return 0  # what a CPU device gets

    monkeypatch.setattr(batchsim.renderer, "consumer_stream", spy)
    renderer.render(*poses, places)  # the reset's cameras again, drawn into the sim's views
    assert asked == [(sim.device, None)]
    np.testing.assert_array_equal(np.from_dlpack(sim.depth), first)
    renderer.submit(0, *poses, places, stream=0)
    renderer.wait(0)
    assert asked[-1] == (sim.device, 0)


def test_step_async_matches_step(dataset, cpu_context):
    a, b = make(dataset, cpu_context, seed=1), make(dataset, cpu_context, seed=1)
    a.reset()
    b.reset()
    rng = np.random.default_rng(2)
    for _ in range(10):
        actions = rng.integers(0, 4, a.num_envs)
        a.step(actions)
        b.step_async(actions)
        assert b.stepping
        b.step_wait()
        assert not b.stepping
        np.testing.assert_array_equal(a.reward, b.reward)
        np.testing.assert_array_equal(np.from_dlpack(a.depth), np.from_dlpack(b.depth))
    assert b.last_step_seconds > 0


def test_a_running_step_blocks_other_calls(dataset, cpu_context):
    sim = make(dataset, cpu_context)
    sim.reset()
    sim.step_async(np.ones(sim.num_envs, np.int32))
    calls = {
        "step()": lambda: sim.step(np.full(sim.num_envs, 3)),
        "step_async()": sim.step_async,
        "reset()": sim.reset,
        "reset_envs()": lambda: sim.reset_envs(np.ones(sim.num_envs, bool)),
        "set_max_episode_geodesic()": lambda: sim.set_max_episode_geodesic(5.0),
    }
    for call, refused in calls.items():  # one check, one error type, whatever the call
        with pytest.raises(batchsim.InvalidArgumentError) as raised:
            refused()
        assert str(raised.value) == (
            f"{call} while an asynchronous step is running: call step_wait() first"
        )
    np.testing.assert_array_equal(sim.actions, np.ones(sim.num_envs))  # the step's, untouched
    sim.step_wait()
    sim.step_wait()  # nothing running: returns at once


def test_the_simulators_batchsim_is_read_only_and_names_the_door(dataset, cpu_context):
    sim = make(dataset, cpu_context)
    sim.reset()
    inner = sim.sim
    calls = {
        "step()": lambda: inner.step(np.ones(sim.num_envs, np.int32)),
        "reset()": inner.reset,
        "reset_envs()": lambda: inner.reset_envs(np.ones(sim.num_envs, bool)),
        "set_max_episode_geodesic()": lambda: inner.set_max_episode_geodesic(5.0),
    }
    steps = inner.stats()["steps"]
    for call, refused in calls.items():
        with pytest.raises(batchsim.InvalidArgumentError) as raised:
            refused()
        assert f"BatchSim.{call} on a Simulator's simulation" in str(raised.value)
        assert f"call Simulator.{call} instead" in str(raised.value)
    assert inner.stats()["steps"] == steps and inner.max_episode_geodesic == math.inf
    sim.set_max_episode_geodesic(5.0)  # the Simulator's door sets it
    assert inner.max_episode_geodesic == 5.0 and inner.episode_step.shape == (sim.num_envs,)


def test_errors_of_an_asynchronous_step_surface_in_step_wait(dataset, cpu_context):
    sim = make(dataset, cpu_context)
    sim.reset()
    with pytest.raises(ValueError, match=r"actions\[2\] is 7"):
        sim.step_async(np.array([0, 1, 7, 1, 1, 1]))
    assert not sim.stepping


def test_scenes_follow_the_slots(three_scene_split, cpu_context):
    # One slot moving to the next scene every 30 steps: the renderer must follow it.
    sim = make(
        three_scene_split,
        cpu_context,
        num_envs=3,
        scenes_resident=1,
        steps_per_scene=30,
        task=batchsim.TaskConfig(max_episode_steps=20),
    )
    sim.reset(seed=0)
    seen = set()
    for _ in range(80):
        sim.step(np.full(3, 1))
        seen.update(int(s) for s in sim.scene_index)
    assert len(seen) >= 2
    np.testing.assert_allclose(
        np.from_dlpack(sim.depth), rendered_from_poses(sim, cpu_context), atol=1e-4
    )


def test_options_are_checked(dataset, cpu_context):
    with pytest.raises(ValueError, match="sensors: expected a non-empty subset"):
        make(dataset, cpu_context, sensors=("lidar",))
    with pytest.raises(ValueError, match="resolution"):
        make(dataset, cpu_context, resolution="big")
    with pytest.raises(ValueError, match="device: expected"):
        batchsim.Simulator(dataset, 2, device="tpu")
    sim = make(dataset, cpu_context, sensors=("rgb", "depth"))
    assert tuple(sim.rgb.shape) == (6, 20, 24, 4)
    assert "Simulator(num_envs=6" in repr(sim)
    sim.close()
    assert sim.closed and "closed" in repr(sim)


def test_pending_actions_are_read_after_their_wait(dataset, cpu_context):
    # The C++ path for CUDA actions with a host-side wait in place of cuEventSynchronize:
    # the values land in the buffer only when the wait runs, as a device copy's would.
    reference, pending = make(dataset, cpu_context, seed=5), make(dataset, cpu_context, seed=5)
    reference.reset()
    pending.reset()
    rng = np.random.default_rng(3)
    buffer = np.zeros(pending.num_envs, np.int64)
    released = threading.Event()
    for _ in range(4):
        actions = rng.integers(0, 4, pending.num_envs)
        buffer[:] = 3 - actions  # decoys: what a read before the wait would see

        def wait(actions=actions):
            assert released.wait(timeout=60)
            buffer[:] = actions

        pending._core.step(pending=(buffer.ctypes.data, wait, 0), background=True)
        assert pending.stepping  # returned before the wait could finish
        released.set()
        pending.step_wait()
        released.clear()
        reference.step(actions)
        np.testing.assert_array_equal(pending.actions, actions)
        np.testing.assert_array_equal(pending.reward, reference.reward)
        np.testing.assert_array_equal(pending.camera_position, reference.camera_position)
        depth, expected = np.from_dlpack(pending.depth), np.from_dlpack(reference.depth)
        np.testing.assert_array_equal(depth, expected)


def test_pending_actions_out_of_range_raise_from_the_step(dataset, cpu_context):
    sim = make(dataset, cpu_context)
    sim.reset()
    sim.step(np.full(sim.num_envs, 1))
    position = sim.camera_position.copy()
    bad = np.array([0, 1, 7, 1, 1, 1], np.int64)
    # Values unseen until the wait:
    sim._core.step(pending=(bad.ctypes.data, lambda: None, 0), background=True)
    with pytest.raises(ValueError, match=r"actions\[2\] is 7; expected 0 \(STOP\), 1 "):
        sim.step_wait()
    huge = np.array([1, 2**40, 1, 1, 1, 1], np.int64)  # no int32 wraparound to 0
    with pytest.raises(ValueError, match=rf"actions\[1\] is {2**40}; expected"):
        sim._core.step(pending=(huge.ctypes.data, lambda: None, 0))
    np.testing.assert_array_equal(sim.actions, np.full(sim.num_envs, 1))  # left as they were
    np.testing.assert_array_equal(sim.camera_position, position)  # nothing stepped
    with pytest.raises(ZeroDivisionError):  # the wait's own error surfaces too
        sim._core.step(pending=(bad.ctypes.data, lambda: 1 / 0, 0))
    with pytest.raises(batchsim.ArgumentTypeError, match="pending"):  # neither int nor callable
        sim._core.step(pending=(bad.ctypes.data, "now", 0))
    assert sim.last_action_wait_seconds >= 0


RESULT_DTYPES = {
    "pointgoal": np.float32,
    "reward": np.float32,
    "terminated": np.bool_,
    "truncated": np.bool_,
    "success": np.float32,
    "spl": np.float32,
    "softspl": np.float32,
    "distance_to_goal": np.float32,
    "collisions": np.int32,
    "geodesic_at_start": np.float32,
    "episode_step": np.int32,
    "episode_index": np.int64,
    "scene_index": np.int32,
    "final_pointgoal": np.float32,
}


@pytest.mark.parametrize("double_buffer", [False, True])
def test_results_tensors_hold_each_steps_host_results(
    three_scene_split, cpu_context, double_buffer
):
    # The render submission copies the host results into Simulator.results: after every
    # reset and step (per half when double-buffered, with final views and scene swaps in
    # between) each tensor must equal its host array.
    sim = make(
        three_scene_split,
        cpu_context,
        num_envs=5,
        steps_per_scene=10,
        task=batchsim.TaskConfig(max_episode_steps=8),
        autoreset="same_step",
        final_views=True,
        double_buffer=double_buffer,
    )
    tensors = {name: np.from_dlpack(tensor) for name, tensor in sim.results.items()}
    assert {name: t.dtype for name, t in tensors.items()} == {
        name: np.dtype(dtype) for name, dtype in RESULT_DTYPES.items()
    }

    def check(when: str) -> None:
        for name, tensor in tensors.items():
            host = sim.final_pointgoal if name == "final_pointgoal" else getattr(sim, name)
            np.testing.assert_array_equal(tensor, host, err_msg=f"{name} after {when}")

    sim.reset(seed=2)
    check("reset")
    rng = np.random.default_rng(4)
    ended = 0
    for step in range(40):
        sim.step(rng.choice(4, size=5, p=[0.1, 0.6, 0.15, 0.15]))
        check(f"step {step}")
        ended += int((sim.terminated | sim.truncated).sum())
    sim.reset_envs(np.array([True, False, True, False, False]))
    check("reset_envs")
    assert ended > 5 and len(set(tensors["scene_index"].tolist())) >= 1
    assert sim.stats()["scene_swaps"] > 0
