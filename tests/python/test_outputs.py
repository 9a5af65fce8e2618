"""The per-environment outputs declared once (src/sim/outputs.hpp, issue 42 item 1): the
numpy views, Simulator.results, SimOutputs and the env's keys all follow the table; the
generated blocks are fresh; no output is named by hand in more than two places."""

from __future__ import annotations

import dataclasses
import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import batchsim
from batchsim import _env_views
from batchsim._outputs import OUTPUTS
from batchsim.sim import SimOutputFields, SimOutputs

ROOT = Path(__file__).resolve().parents[2]


def load_script(name: str):
    spec = importlib.util.spec_from_file_location(name, ROOT / "scripts" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def sim(procgen_dataset):
    root, _ = procgen_dataset
    sim = batchsim.BatchSim(root / "pointnav" / "train", 5, seed=3)
    sim.reset()
    return sim


def test_simoutputs_fields_are_actions_and_the_table():
    names = [spec.name for spec in OUTPUTS]
    assert [f.name for f in dataclasses.fields(SimOutputs)] == ["actions", *names]
    annotated = [n for n in SimOutputFields.__annotations__ if n != "outputs"]
    assert annotated == ["actions", *names]
    assert len(set(names)) == len(names)


def test_arrays_follow_the_table(sim):
    arrays = sim._core.arrays()
    assert list(arrays) == ["actions", *(spec.name for spec in OUTPUTS)]
    assert arrays["actions"].flags.writeable
    for spec in OUTPUTS:
        array = arrays[spec.name]
        shape = (5,) if spec.columns == 1 else (5, spec.columns)
        assert (array.dtype, array.shape) == (np.dtype(spec.dtype), shape), spec.name
        assert not array.flags.writeable, spec.name


def test_camera_columns_are_the_pose_fields(sim):
    """The strided views read the renderer's CameraPose (x y z, resident, qx qy qz qw)."""
    height = sim.config.task.camera_height
    lifted = sim.position + np.array([0.0, height, 0.0], np.float32)
    np.testing.assert_allclose(sim.camera_position, lifted, atol=1e-5)  # a yaw keeps up up
    np.testing.assert_array_equal(sim.camera_rotation, sim.rotation)


def test_results_are_the_staged_outputs(procgen_dataset, cpu_context):
    root, _ = procgen_dataset
    split = root / "pointnav" / "train"
    simulator = batchsim.Simulator(split, 4, context=cpu_context, sensors=("depth",), resolution=8)
    try:
        simulator.reset(seed=1)
        simulator.step(np.array([1, 2, 3, 1], np.int32))
        results = simulator.results
        staged = [spec.name for spec in OUTPUTS if spec.staged]
        assert [name for name in results if name != "final_pointgoal"] == staged
        for name in staged:
            np.testing.assert_array_equal(
                np.from_dlpack(results[name]), getattr(simulator.outputs, name), name
            )
    finally:
        simulator.close()


def test_env_keys_come_from_the_table():
    assert _env_views.POINTGOAL == "pointgoal_with_gps_compass"
    assert _env_views.STEP_RETURNS == ("reward", "terminated", "truncated")  # gymnasium's order
    assert list(_env_views.EPISODE_METRICS) == ["success", "spl", "softspl"]
    assert _env_views.STEP_METRICS == {
        "distance_to_goal": "distance_to_goal",
        "collisions": "collisions",
        "geodesic_at_start": "geodesic_at_start",
        "episode_id": "episode_index",
        "scene_id": "scene_index",
    }


def test_generated_blocks_are_fresh():
    script = load_script("output_table")
    stale = [p for p, text in script.generated().items() if p.read_text() != text]
    assert not stale, f"stale: {stale}; run `python3 scripts/output_table.py --write`"


def test_generated_block_check_can_fail():
    script = load_script("output_table")
    text = "a\n# outputs:names:begin\n    old: np.ndarray\n# outputs:names:end\nb"
    out = script.replace_block(text, "names", script.name_lines(OUTPUTS[:1]), Path("x"))
    assert (
        out
        == f"a\n# outputs:names:begin\n    {OUTPUTS[0].name}: np.ndarray\n# outputs:names:end\nb"
    )
    with pytest.raises(SystemExit, match="outputs:fields:begin"):
        script.replace_block(text, "fields", [], Path("x"))


def test_no_output_is_named_in_more_than_two_places():
    run = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "count_output_places.py")],
        capture_output=True,
        text=True,
    )
    report = json.loads(run.stdout)
    assert run.returncode == 0, report["over_limit"]
    assert set(report["places"]) == {spec.name for spec in OUTPUTS}
    assert all(1 <= p["count"] <= 2 for p in report["places"].values())


def test_place_count_fails_on_a_hand_written_list(tmp_path):
    """A copy of the tree's table plus a module that lists three outputs by hand: over."""
    script = load_script("count_output_places")
    for rel in script.TABLE:
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text((ROOT / rel).read_text())
    (tmp_path / "src" / "env").mkdir()
    (tmp_path / "src" / "env" / "x.cpp").write_text(
        'f("reward", "spl");\ng("success"); // softspl\n'
    )
    module = tmp_path / "python" / "batchsim" / "env.py"
    module.parent.mkdir(parents=True)
    module.write_text('KEYS = ["reward", "spl",\n  "softspl"]\n"""reward, spl, softspl"""\n')
    found = script.places(tmp_path, script.table_names(ROOT))
    assert found["reward"] == ["table", "src/env/x.cpp", "python/batchsim/env.py"]
    assert len(found["reward"]) > script.LIMIT
    assert found["softspl"] == ["table", "python/batchsim/env.py"]  # a comment is no place
    assert found["success"] == ["table", "src/env/x.cpp"]


def test_geodesic_at_start_is_the_episode_start_distance(procgen_dataset):
    """geodesic_at_start (the proof output: one table row, one line of rules) holds the
    episode's start distance: the dataset's geodesic_distance, measured anew; distance_to_goal
    at the start; unchanged through the episode; the ended episode's in the step it ends."""
    root, _ = procgen_dataset
    sim = batchsim.BatchSim(root / "pointnav" / "train", 6, seed=2, geodesic="exact")
    reference = np.array([e.geodesic_distance for e in sim.episodes], np.float32)
    sim.reset()
    np.testing.assert_array_equal(sim.geodesic_at_start, sim.distance_to_goal)
    # The procgen dataset's geodesic_distance comes from its own exact navmesh query at
    # the same start and goal: 1 mm covers float32 path sums of tens of metres.
    np.testing.assert_allclose(sim.geodesic_at_start, reference[sim.episode_index], atol=1e-3)
    rng = np.random.default_rng(0)
    ended = np.zeros(6, bool)
    restarts = 0
    for _ in range(80):
        before, episode = sim.geodesic_at_start.copy(), sim.episode_index.copy()
        sim.step(rng.choice(4, 6, p=[0.1, 0.6, 0.15, 0.15]).astype(np.int32))
        # An episode that began in the last step (same_step autoreset) shows its own start
        # from this step on; every other keeps its value, the ended ones included.
        expected = np.where(ended, reference[episode], before)
        np.testing.assert_allclose(sim.geodesic_at_start, expected, atol=1e-3)
        np.testing.assert_array_equal(sim.geodesic_at_start[~ended], before[~ended])
        ended = sim.terminated | sim.truncated
        restarts += int(ended.sum())
    assert restarts >= 3  # the autoreset case ran
