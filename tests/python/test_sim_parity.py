"""batchsim.BatchSim against the plain-Python reference of Habitat's PointNav rules
(pointnav_reference.py): 64 environments on three scenes for 10,000 steps, every output
compared after every step, with "same_step" autoreset."""

from __future__ import annotations

import shutil
import time
from pathlib import Path

import numpy as np
import pytest

import batchsim
from batchsim.datasets import load_pointnav, packed_scene_path, write_pointnav
from pointnav_reference import (
    MOVE_FORWARD,
    STOP,
    TURN_LEFT,
    TURN_RIGHT,
    PointNavReference,
    ReferenceConfig,
)

NUM_ENVS = 64
NUM_STEPS = 10_000
SEED = 0
EXPLORE = 0.25  # greedy agents take a random move this often, so they also hit walls
MIN_EVENTS = 5  # each of success, SPL > 0, collision, truncation must occur this often

POSITION_TOL = 1e-5  # metres
ROTATION_TOL = 1e-5
VALUE_TOL = 1e-4  # reward, spl, softspl, distance_to_goal, pointgoal (abs and rel)


def require_sim():
    """BatchSim and TaskConfig, or a skip while the bindings do not have them yet."""
    try:
        return batchsim.BatchSim, batchsim.TaskConfig
    except AttributeError as exc:
        pytest.skip(f"batchsim has no simulator bindings yet: {exc}")


@pytest.fixture(scope="module")
def three_scene_split(procgen_dataset, tmp_path_factory):
    """The cached dataset's train, val and test splits (one scene each) as one split."""
    root, _ = procgen_dataset
    out = tmp_path_factory.mktemp("three-scenes")
    try:  # scene_ids resolve against <out>/scene_datasets
        (out / "scene_datasets").symlink_to(root / "scene_datasets", target_is_directory=True)
    except OSError:
        shutil.copytree(root / "scene_datasets", out / "scene_datasets")
    by_scene: dict[str, list] = {}
    for split in ("train", "val", "test"):
        for episode in load_pointnav(root / "pointnav" / split):
            by_scene.setdefault(episode.scene_name, []).append(episode)
    assert len(by_scene) == 3
    write_pointnav(out / "pointnav", "all", by_scene)
    dataset = load_pointnav(out / "pointnav" / "all", scenes_dir=out / "scene_datasets")
    dataset.check_scenes()
    return dataset


def reference_for(sim, dataset) -> PointNavReference:
    """A reference over the simulator's episode and scene numbering, each episode's scene
    found by Habitat's scene_id resolution (not by asking the simulator)."""
    assert len(sim.episodes) > 0
    for episode in sim.episodes:
        assert episode in dataset.episodes, f"the simulator invented episode {episode}"
    index_of = {Path(p).resolve(): i for i, p in enumerate(sim.scene_paths)}
    episode_scene = []
    for episode in sim.episodes:
        packed = packed_scene_path(dataset.scene_path(episode.scene_id))
        assert packed is not None, f"no packed scene for {episode.scene_id}"
        assert packed.resolve() in index_of, f"{packed} is not among sim.scene_paths"
        episode_scene.append(index_of[packed.resolve()])
    navmeshes = [batchsim.Scene.load(p).navmesh() for p in sim.scene_paths]
    return PointNavReference(navmeshes, sim.episodes, episode_scene, NUM_ENVS, ReferenceConfig())


def choose_actions(ref: PointNavReference, rng: np.random.Generator) -> np.ndarray:
    """Envs [0, N/2): uniform random actions. Envs [N/2, N): turn towards the goal when it
    is more than 10 degrees off, else forward, STOP within 0.2 m (Euclidean, so some stops
    fail behind walls); a random move with probability EXPLORE."""
    n = ref.num_envs
    rho, angle = ref.pointgoal[:, 0], ref.pointgoal[:, 1]
    limit = np.radians(10)
    greedy = np.where(angle > limit, TURN_LEFT, np.where(angle < -limit, TURN_RIGHT, MOVE_FORWARD))
    greedy = np.where(rho < 0.2, STOP, greedy)
    greedy = np.where(rng.random(n) < EXPLORE, rng.integers(1, 4, n), greedy)
    uniform = rng.integers(0, 4, n)
    return np.where(np.arange(n) < n // 2, uniform, greedy).astype(np.int64)


def wrapped(angle: np.ndarray) -> np.ndarray:
    return (angle + np.pi) % (2 * np.pi) - np.pi


def mismatches(sim, ref: PointNavReference) -> dict[str, tuple]:
    """Field -> (bad [N] bool, simulator values, reference values)."""
    out = {}

    def close(name, atol, rtol=0.0):
        a, b = np.asarray(getattr(sim, name), np.float64), getattr(ref, name)
        bad = ~(np.abs(a - b) <= atol + rtol * np.abs(b))
        out[name] = bad.reshape(len(b), -1).any(axis=1), a, b

    def exact(name):
        a, b = np.asarray(getattr(sim, name)), getattr(ref, name)
        out[name] = a != b, a, b

    def same_rotation(name, q, expected):  # q and -q are the same rotation
        error = np.minimum(np.abs(q - expected).max(1), np.abs(q + expected).max(1))
        out[name] = ~(error <= ROTATION_TOL), q, expected

    for name in ("terminated", "truncated", "episode_index", "scene_index"):
        exact(name)
    exact("episode_step")
    exact("collisions")
    close("position", POSITION_TOL)
    rotation = np.asarray(sim.rotation, np.float64)
    same_rotation("rotation", rotation, ref.rotation)
    same_rotation(
        "rotation (start turned by the net turn count)", rotation, ref.rotation_from_turns()
    )
    goal = np.asarray(sim.pointgoal, np.float64)
    rho, angle = ref.pointgoal[:, 0], ref.pointgoal[:, 1]
    rho_bad = ~(np.abs(goal[:, 0] - rho) <= VALUE_TOL * (1 + rho))
    turn = np.abs(wrapped(goal[:, 1] - angle))  # +pi and -pi are the same direction
    # Near the goal the angle is ill-conditioned: accept what the position tolerance allows.
    angle_bad = ~((turn <= VALUE_TOL * (1 + np.abs(angle))) | (turn * rho <= POSITION_TOL))
    out["pointgoal"] = rho_bad | angle_bad, goal, ref.pointgoal
    exact("success")
    for name in ("reward", "spl", "softspl"):
        close(name, VALUE_TOL)
    close("distance_to_goal", VALUE_TOL, VALUE_TOL)
    return out


def check(sim, ref, step: int, actions=None, ended_episode=None) -> None:
    """Fails with every disagreeing field (env, step, both values) after reset (step -1)
    or a step."""
    bad = {name: found for name, found in mismatches(sim, ref).items() if found[0].any()}
    if not bad:
        return
    when = "after reset()" if step < 0 else f"after step {step}"
    lines = [f"simulator and reference disagree {when} on {', '.join(bad)}:"]
    for name, (envs, sim_values, ref_values) in bad.items():
        for env in np.flatnonzero(envs)[:3]:
            episode = f"episode {ref.episode_index[env]}"
            if ended_episode is not None and ended_episode[env] != ref.episode_index[env]:
                episode = f"episode {ended_episode[env]} ended, next {ref.episode_index[env]}"
            action = "" if actions is None else f", action {actions[env]}"
            lines.append(
                f"  {name}: env {env} ({episode}, episode_step {ref.episode_step[env]}"
                f"{action}): sim {sim_values[env].tolist()} reference {ref_values[env].tolist()}"
            )
    pytest.fail("\n".join(lines), pytrace=False)


def test_pointnav_sim_matches_the_reference(three_scene_split):
    """Lockstep: after each comparison the reference continues from the simulator's poses,
    so every step checks one application of the rules at float32 rounding (see
    PointNavReference.adopt_poses); rotation_from_turns checks headings without it."""
    point_nav_sim, task_config = require_sim()
    started = time.perf_counter()
    sim = point_nav_sim(
        three_scene_split,
        num_envs=NUM_ENVS,
        mode="train",
        seed=SEED,
        num_threads=1,
        scenes_resident=3,
        steps_per_scene=2000,
        geodesic="exact",
        autoreset="same_step",
        task=task_config(),
    )
    ref = reference_for(sim, three_scene_split)
    sim.reset()
    ref.reset(np.asarray(sim.episode_index).copy())
    check(sim, ref, -1)
    ref.adopt_poses(sim.position, sim.rotation)

    rng = np.random.default_rng(SEED)
    events = dict(successes=0, spl_positive=0, collisions=0, truncations=0)
    scenes_seen = set(np.unique(ref.scene_index).tolist())
    for step in range(NUM_STEPS):
        actions = choose_actions(ref, rng)
        sim.step(actions)
        ended = np.flatnonzero(ref.step(actions))
        ended_episode = ref.episode_index.copy()
        if len(ended):
            chosen = np.asarray(sim.episode_index)[ended]
            if not ((chosen >= 0) & (chosen < len(sim.episodes))).all():
                pytest.fail(f"step {step}: episode_index {chosen} out of range", pytrace=False)
            ref.start_episodes(ended, chosen)
            scenes_seen.update(ref.scene_index[ended].tolist())
        check(sim, ref, step, actions, ended_episode)
        ref.adopt_poses(sim.position, sim.rotation)
        events["successes"] += int(ref.success.sum())
        events["spl_positive"] += int((ref.spl > 0).sum())
        events["collisions"] += int(ref.collided.sum())
        events["truncations"] += int(ref.truncated.sum())

    elapsed = time.perf_counter() - started
    print(f"{NUM_STEPS} steps of {NUM_ENVS} envs in {elapsed:.1f} s: {events}")
    assert len(scenes_seen) == 3, f"envs used scenes {scenes_seen} only"
    for name, count in events.items():
        assert count >= MIN_EVENTS, f"only {count} {name} in {NUM_STEPS} steps: {events}"
