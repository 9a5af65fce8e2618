"""The zero-shot protocol on real buildings (`batchsim zero-shot`): the house from Debian's
assimp-testmodels imported, seeded Habitat-rule episodes on its indoor islands (valid by
check_episode, byte-identical for a seed), and the random and forward baselines evaluated
over every episode once with 95% confidence intervals."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytest.importorskip("torch")

from batchsim.cli import main
from batchsim.datasets import EpisodeRules, check_episode, load_pointnav
from batchsim.datasets.real_buildings import (
    REAL_BUILDINGS,
    available_buildings,
    episode_shares,
    indoor_islands,
    prepare_real_buildings,
)
from batchsim.scenes import Scene

found, _ = available_buildings()
pytestmark = pytest.mark.skipif(not found, reason="no real building model (assimp-testmodels)")
EPISODES = 6


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    out = tmp_path_factory.mktemp("zero-shot")
    args = ["zero-shot", "--out", str(out), "--episodes", str(EPISODES), "--envs", "4"]
    assert main([*args, "--device", "cpu", "--no-progress"]) == 0
    return out, json.loads((out / "results.json").read_text())


def test_episodes_are_valid_and_counted(run):
    _, report = run
    split = load_pointnav(report["split"], scenes_dir=report["scenes_dir"])
    assert len(split.episodes) == EPISODES == sum(b["episodes"] for b in report["buildings"])
    models = {m.name: m for m in REAL_BUILDINGS}
    for building in report["buildings"]:
        model = models[building["name"]]
        scene = Scene.load(Path(report["scenes_dir"]) / "real" / f"{model.name}.bsscene")
        navmesh = scene.navmesh()
        rules = EpisodeRules(
            closest_dist_limit=model.min_geodesic, furthest_dist_limit=model.max_geodesic
        )
        episodes = split.episodes_for(model.name)
        assert len(episodes) == building["episodes"] > 0
        assert [e.episode_id for e in episodes] == [str(i) for i in range(len(episodes))]
        allowed = indoor_islands(navmesh)
        for episode in episodes:
            assert check_episode(navmesh, episode, rules) == []
            assert navmesh.get_island(episode.start_position) in allowed
        assert building["triangles"] == scene.triangle_count and building["floors"] >= 1
        assert 0 < building["indoor_area"] <= building["navigable_area"]


def test_baselines_have_confidence_intervals(run):
    _, report = run
    results = report["results"]
    assert set(results) == {"random", "forward"}
    for summary in results.values():
        for measure in ("success", "spl", "softspl", "distance_to_goal"):
            assert summary[measure]["episodes"] == EPISODES
            assert summary[measure]["ci95"] >= 0
        assert 0 <= summary["success"]["mean"] <= 1
    assert results["forward"]["success"]["mean"] == 0.0  # it never calls STOP


def test_the_episode_file_is_deterministic_for_a_seed(run, tmp_path):
    _, report = run
    first = Path(report["split"])
    again = prepare_real_buildings(tmp_path / "a", EPISODES, seed=0, log=lambda _: None)
    assert again.split.read_bytes() == first.read_bytes()
    content = sorted((first.parent / "content").iterdir())
    assert [p.read_bytes() for p in content] == [
        p.read_bytes() for p in sorted((again.split.parent / "content").iterdir())
    ]
    other = prepare_real_buildings(tmp_path / "b", EPISODES, seed=1, log=lambda _: None)
    assert [p.read_bytes() for p in sorted((other.split.parent / "content").iterdir())] != [
        p.read_bytes() for p in content
    ]


def test_a_second_run_reuses_the_cache(run):
    out, _ = run
    stamp = (out / "pointnav" / "real" / "real.json.gz").stat().st_mtime_ns
    messages = []
    prepare_real_buildings(out, EPISODES, seed=0, log=messages.append)
    assert not any("importing" in m for m in messages) and any("reusing" in m for m in messages)
    assert (out / "pointnav" / "real" / "real.json.gz").stat().st_mtime_ns == stamp


def test_episodes_are_shared_evenly():
    assert episode_shares(1000, 3) == [334, 333, 333] and episode_shares(5, 1) == [5]
