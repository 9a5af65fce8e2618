"""Issue 40, wrong outputs: inputs that ran to a wrong result without a word are refused,
each class with a message that names what was given and what was expected. One test per
class: an import over its own source, a scene with nothing to render, episode starts the
rules cannot honour, step_wait() without step_async(), a video at a resolution the policy
never saw, non-finite points to NavMesh queries."""

from __future__ import annotations

import os

import numpy as np
import pytest
from gymnasium.error import NoAsyncCallError

import batchsim
from batchsim.cli import main
from batchsim.datasets import load_pointnav, write_pointnav
from batchsim.datasets.scene_check import scene_problems
from batchsim.datasets.scenes import simulator_scene_file
from batchsim.env import POINTGOAL

SQUARE_OBJ = "v 0 0 0\nv 4 0 0\nv 4 0 4\nv 0 0 4\nf 1 3 2\nf 1 4 3\n"


@pytest.fixture(scope="module")
def split(procgen_dataset):
    return procgen_dataset[0] / "pointnav" / "train"


def test_an_import_never_writes_over_its_own_source(tmp_path, capsys):
    model = tmp_path / "m.obj"
    model.write_text(SQUARE_OBJ)
    os.symlink(model, tmp_path / "link.obj")
    os.link(model, tmp_path / "hard.obj")
    for out in (model, tmp_path / "link.obj", tmp_path / "hard.obj"):
        with pytest.raises(batchsim.InvalidArgumentError, match=r"is the model .* itself"):
            batchsim.import_scene(model, out)
    navmesh = tmp_path / "m.navmesh"
    batchsim.import_scene(model, tmp_path / "ok.bsscene").navmesh().save(navmesh)
    with pytest.raises(batchsim.InvalidArgumentError, match=r"is the navmesh .* itself"):
        batchsim.import_scene(model, navmesh, navmesh=navmesh)
    assert main(["import", str(model), str(model)]) == 2
    assert "choose another output, such as" in capsys.readouterr().err
    assert model.read_text() == SQUARE_OBJ  # untouched


def test_a_scene_without_geometry_is_refused_for_visual_sensors(split, tmp_path, cpu_context):
    """A bare .navmesh beside the model (no .bsscene) renders blank views: refused with
    depth or RGB, named; navigation-only BatchSim still runs it."""
    dataset = load_pointnav(split)
    packed = simulator_scene_file(dataset, dataset.scene_ids[0])
    bare = tmp_path / "scene_datasets" / packed.with_suffix(".navmesh").name
    bare.parent.mkdir()
    batchsim.Scene.load(packed).navmesh().save(bare)
    episodes = [e for e in dataset if e.scene_id == dataset.scene_ids[0]]
    scene_id = str(bare.with_suffix(".glb"))
    navmesh_split = write_pointnav(
        tmp_path / "pointnav", "bare", {scene_id: [_on(e, scene_id) for e in episodes]}
    )
    for sensors in (("depth",), ("rgb",)):
        with pytest.raises(batchsim.InvalidArgumentError) as info:
            batchsim.BatchNavEnv(navmesh_split, 2, sensors=sensors, context=cpu_context)
        assert str(bare) in str(info.value) and "no geometry to render" in str(info.value)
    sim = batchsim.BatchSim(navmesh_split, 2)
    sim.reset(seed=0)
    sim.step(np.ones(2, np.int32))


def _on(episode, scene_id):
    import dataclasses

    return dataclasses.replace(episode, scene_id=scene_id)


def inside_a_wall(navmesh, start: np.ndarray) -> np.ndarray:
    """A point 5 cm past the navmesh's edge (the agent radius keeps it 10 cm from walls),
    walking from `start` along +x."""
    radius = navmesh.settings.agent_radius
    point = start.copy()
    while True:
        point[0] += 0.01
        snapped = navmesh.snap_point(point)
        if np.hypot(*(point - snapped)[[0, 2]]) > radius + 0.05:
            return point


def test_episode_starts_the_rules_cannot_honour_are_refused(split, tmp_path, cpu_context):
    """A tilted start, one 500 m off the navmesh, one inside a wall, one 2.5 m up: the
    simulator refuses the scene when it loads it, check-dataset before a run, both naming
    the episode and the rule; the dataset's own episodes pass."""
    import dataclasses

    scenes_dir = split.parents[1] / "scene_datasets"  # scene_ids: data/scene_datasets/...
    dataset = load_pointnav(split, scenes_dir=scenes_dir)
    assert scene_problems(dataset, show_progress=False) == []
    good = dataset.episodes[0]
    navmesh = batchsim.Scene.load(simulator_scene_file(dataset, good.scene_id)).navmesh()
    start = np.asarray(good.start_position, np.float64)
    roll = [float(np.sin(np.pi / 4)), 0.0, 0.0, float(np.cos(np.pi / 4))]
    broken = {
        "not a turn about the vertical axis": {"start_rotation": roll},
        "is off the navmesh": {"start_position": np.add(start, [500, 0, 0]).tolist()},
        "to the side of the navmesh": {"start_position": inside_a_wall(navmesh, start).tolist()},
        # Above whatever lies under it (a table top, maybe): more than 0.5 m in any case.
        "m above the navmesh": {"start_position": np.add(start, [0, 2.5, 0]).tolist()},
    }
    for rule, change in broken.items():
        episode = dataclasses.replace(good, episode_id="bad", **change)
        episodes = [episode, *[e for e in dataset if e.scene_id == good.scene_id][1:]]
        bad_split = write_pointnav(tmp_path / rule[:8], "bad", {good.scene_id: episodes})
        bad = load_pointnav(bad_split, scenes_dir=scenes_dir)
        [problem] = scene_problems(bad, show_progress=False)
        assert "episode 'bad'" in problem.reason and rule in problem.reason, problem.reason
        with pytest.raises(batchsim.InvalidArgumentError, match=rule) as info:
            env = batchsim.BatchNavEnv(bad, 2, context=cpu_context, resolution=(8, 8))
            try:
                env.reset(seed=0)
            finally:
                env.close()
        assert "episode 0 (dataset order)" in str(info.value)


def test_step_wait_without_step_async_is_refused(small_envs):
    env = small_envs()
    env.reset(seed=0)
    with pytest.raises(NoAsyncCallError, match="without step_async"):
        env.step_wait()
    env.step(np.ones(env.num_envs, np.int64))
    with pytest.raises(NoAsyncCallError):  # the step above was waited for already
        env.step_wait()
    env.step_async(np.ones(env.num_envs, np.int64))
    assert env.step_wait()[0][POINTGOAL].shape == (env.num_envs, 2)


def test_video_refuses_a_resolution_the_policy_never_saw(procgen_dataset, tmp_path, capsys):
    from test_train_video import write_demo_checkpoint

    val = procgen_dataset[0] / "pointnav" / "val"
    write_demo_checkpoint(tmp_path / "run", f"val_dataset={val}")  # trained at 16 px
    out = tmp_path / "video.gif"
    argv = ["video", "--checkpoint", str(tmp_path / "run"), "--out", str(out), "--device", "cpu"]
    assert main([*argv, "--resolution", "64", "--episodes", "1"]) == 2
    error = capsys.readouterr().err
    assert "render.width: checkpoint has 16, this run asks for 64" in error
    assert not out.exists()
    # Agents that ignore the policy may look at any resolution.
    assert main([*argv, "--resolution", "64", "--episodes", "1", "--agent", "forward"]) == 0


def test_non_finite_points_to_navmesh_queries_are_refused(split):
    dataset = load_pointnav(split)
    path = simulator_scene_file(dataset, dataset.scene_ids[0])
    navmesh = batchsim.Scene.load(path).navmesh()
    p = navmesh.get_random_navigable_point()
    for bad in ([np.nan] * 3, [0.0, np.inf, 0.0], [-np.inf, 0.0, 1.0]):
        queries = {
            "start": lambda bad=bad: navmesh.try_step(bad, p),
            "end": lambda bad=bad: navmesh.try_step_no_sliding(p, bad),
            "point": lambda bad=bad: navmesh.snap_point(bad),
            "end ": lambda bad=bad: navmesh.geodesic_distance(p, bad),
            "start ": lambda bad=bad: navmesh.find_path(bad, p),
            " point": lambda bad=bad: navmesh.is_navigable(bad),
            "  point": lambda bad=bad: navmesh.get_island(bad),
            "starts row 1": lambda bad=bad: navmesh.geodesic_distances(np.array([p, bad]), [p, p]),
        }
        for name, query in queries.items():
            with pytest.raises(batchsim.InvalidArgumentError, match=f"^{name.strip()}: expected"):
                query()
    for radius in (np.inf, np.nan, 0.0, -1.0):
        with pytest.raises(batchsim.InvalidArgumentError, match="max_search_radius"):
            navmesh.distance_to_closest_obstacle(p, max_search_radius=radius)
    with pytest.raises(batchsim.InvalidArgumentError, match="max_y_delta"):
        navmesh.is_navigable(p, max_y_delta=np.nan)
    assert navmesh.distance_to_closest_obstacle(p, max_search_radius=1e6) > 0
    np.testing.assert_array_equal(navmesh.snap_point(p), p)  # finite points: answered
