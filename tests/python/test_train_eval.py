"""Evaluation runs every episode of a split exactly once and summarises Habitat's measures;
the forward-only baseline never calls STOP, so it never succeeds."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("torch")

import batchsim
from batchsim.datasets import load_pointnav
from batchsim.train.evaluate import (
    ForwardAgent,
    PolicyAgent,
    RandomAgent,
    run_episodes,
    summarize,
)


@pytest.fixture(scope="module")
def val(procgen_dataset):
    root, _ = procgen_dataset
    return root / "pointnav" / "val" / "val.json.gz"


def eval_sim(split, cpu_context, n=4):
    return batchsim.Simulator(
        split,
        n,
        mode="eval",
        autoreset="same_step",
        resolution=16,
        context=cpu_context,
        task=batchsim.TaskConfig(max_episode_steps=40),
    )


@pytest.mark.parametrize("agent", [ForwardAgent(), RandomAgent(seed=1)], ids=["forward", "random"])
def test_every_episode_once(val, cpu_context, agent):
    results = run_episodes(eval_sim(val, cpu_context), agent)
    episodes = len(load_pointnav(val).episodes)
    assert all(len(v) == episodes for v in results.values())
    summary = summarize(results)
    assert summary["success"]["episodes"] == episodes
    assert all(0 <= s["ci95"] < 1e9 for s in summary.values())
    assert 0 <= summary["spl"]["mean"] <= summary["success"]["mean"] + 1e-6
    assert np.isfinite(results["distance_to_goal"]).all()
    if isinstance(agent, ForwardAgent):
        assert summary["success"]["mean"] == 0.0


def test_run_episodes_names_each_ended_episode_and_reads_other_fields(val, cpu_context):
    fields = ("episode_index", "success", "terminated", "episode_step")
    results = run_episodes(eval_sim(val, cpu_context), RandomAgent(seed=2), fields=fields)
    episodes = len(load_pointnav(val).episodes)
    assert sorted(results["episode_index"].tolist()) == list(range(episodes))  # each once
    assert set(results) == set(fields)
    assert ((results["episode_step"] >= 1) & (results["episode_step"] <= 40)).all()
    # an episode that did not call STOP ran to the 40-step limit
    assert (results["episode_step"][~results["terminated"].astype(bool)] == 40).all()


def test_a_policy_agent_evaluates(val, cpu_context):
    from batchsim.train.models import Policy
    from batchsim.train.presets import make_config

    config = make_config("demo", overrides=["hidden_size=16"])
    policy = Policy("simple_cnn", 1, hidden=16, layers=1, rnn="gru")
    results = run_episodes(eval_sim(val, cpu_context), PolicyAgent(policy, config))
    assert len(results["spl"]) == len(load_pointnav(val).episodes)


def test_the_eval_simulator_keeps_enough_slots_and_needs_fewer_steps(three_scene_split):
    """Scenes resident run their episodes side by side: every episode still once, in fewer
    simulator steps than fewer scenes at a time. The simulator keeps at least the training's
    slots, and more where the environments would otherwise wait for episodes."""
    from batchsim.train.evaluate import eval_simulator
    from batchsim.train.presets import make_config

    split = load_pointnav(three_scene_split)
    per_scene = min(len(split.episodes_for(s)) for s in split.scene_ids)
    steps = {}
    for slots, envs in ((1, per_scene), (1, 3 * per_scene), (3, per_scene)):
        config = make_config(
            "demo",
            overrides=[
                "device=cpu",
                "render.width=16",
                "render.height=16",
                "sim.task.max_episode_steps=20",
                "sim.num_threads=1",
                f"sim.scenes_resident={slots}",
            ],
        )
        sim = eval_simulator(config, str(three_scene_split), envs)
        results = run_episodes(sim, ForwardAgent())
        expected = max(slots, envs // per_scene)  # scenes enough for every environment
        assert sim.scenes_resident == expected  # known once reset has placed the slots
        assert len(results["success"]) == len(split.episodes)
        steps[slots, envs] = sim.stats()["steps"]
        sim.close()
    assert steps[1, 3 * per_scene] < steps[1, per_scene], steps  # one round instead of three


def test_busy_scenes_gives_every_environment_an_episode():
    from batchsim.datasets.pointnav import PointNavDataset
    from batchsim.train.evaluate import MAX_EVAL_SCENES, busy_scenes

    class Episode:
        def __init__(self, scene_id):
            self.scene_id = scene_id

    counts = {"a": 10, "b": 10, "c": 12, "d": 30}
    dataset = PointNavDataset([Episode(s) for s, n in counts.items() for _ in range(n)])
    assert busy_scenes(dataset, 1, 1) == 1
    assert busy_scenes(dataset, 10, 1) == 1
    assert busy_scenes(dataset, 11, 1) == 2  # by the fewest per scene: 10
    assert busy_scenes(dataset, 25, 1) == 3
    assert busy_scenes(dataset, 25, 2) == 3
    assert busy_scenes(dataset, 1000, 1) == 4  # no more than the split has
    assert busy_scenes(dataset, 5, 16) == 4
    many = PointNavDataset([Episode(str(i)) for i in range(500)])
    assert busy_scenes(many, 1000, 16) == MAX_EVAL_SCENES
